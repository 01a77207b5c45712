package replicaset

import (
	"testing"
	"time"
)

// clock is a settable time for expectations' TTL.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestExpectationsWaitForEveryCreation(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	e := newExpectations(c.now, time.Minute)
	if !e.satisfied("ns/a") {
		t.Fatal("satisfied with no record = false, want true")
	}
	e.expectCreations("ns/a", 3)
	e.creationsObserved("ns/a", 1)
	e.creationsObserved("ns/a", 1)
	if e.satisfied("ns/a") {
		t.Fatal("satisfied with 1 of 3 creations unseen = true, want false")
	}
	if !e.satisfied("ns/b") {
		t.Fatal("another key is held up by ns/a's expectations")
	}
	e.creationsObserved("ns/a", 1)
	e.creationsObserved("ns/a", 1) // a late extra observation must not go negative
	if !e.satisfied("ns/a") {
		t.Fatal("satisfied after all creations seen = false, want true")
	}
	e.expectCreations("ns/a", 1)
	if e.satisfied("ns/a") {
		t.Fatal("an extra observation earlier left credit: satisfied = true, want false")
	}
}

func TestExpectationsCountEachDeletionOnce(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	e := newExpectations(c.now, time.Minute)
	e.expectDeletions("ns/a", []string{"ns/p1", "ns/p2"})
	e.deletionObserved("ns/a", "ns/p1") // seen going
	e.deletionObserved("ns/a", "ns/p1") // then gone: the same deletion
	if e.satisfied("ns/a") {
		t.Fatal("satisfied with p2's deletion unseen = true, want false")
	}
	e.deletionObserved("ns/a", "ns/other")
	if e.satisfied("ns/a") {
		t.Fatal("an unrelated pod's deletion satisfied the expectations")
	}
	e.deletionObserved("ns/a", "ns/p2")
	if !e.satisfied("ns/a") {
		t.Fatal("satisfied after both deletions seen = false, want true")
	}
}

func TestExpectationsExpire(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	e := newExpectations(c.now, time.Minute)
	e.expectCreations("ns/a", 2)
	c.t = c.t.Add(time.Minute)
	if e.satisfied("ns/a") {
		t.Fatal("satisfied exactly at the TTL = true, want false")
	}
	c.t = c.t.Add(time.Second)
	if !e.satisfied("ns/a") {
		t.Fatal("satisfied past the TTL = false, want true")
	}
	e.expectCreations("ns/a", 1)
	e.forget("ns/a")
	if !e.satisfied("ns/a") {
		t.Fatal("satisfied after forget = false, want true")
	}
}
