package controllers

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestExpectationsWaitForTheCache(t *testing.T) {
	now := time.Unix(1000, 0)
	e := NewExpectations(time.Minute, func() time.Time { return now })
	cache := map[string]types.UID{"old": "uid-old"}
	lookup := func(name string) (types.UID, bool) { uid, ok := cache[name]; return uid, ok }

	e.ExpectCreate("ns/ds", "new")
	e.ExpectDelete("ns/ds", "old", "uid-old")
	if e.Satisfied("ns/ds", lookup) {
		t.Fatal("Satisfied before the cache shows the create or the delete: got true")
	}
	cache["new"] = "uid-new"
	if e.Satisfied("ns/ds", lookup) {
		t.Fatal("Satisfied with the delete still unseen: got true")
	}
	cache["old"] = "uid-namesake" // deleted and made again: the delete was seen
	if !e.Satisfied("ns/ds", lookup) {
		t.Fatal("Satisfied once both show: got false")
	}

	e.ExpectCreate("ns/ds", "lost")
	e.Observed("ns/other", "lost", false)
	if e.Satisfied("ns/ds", lookup) {
		t.Fatal("an event for another key met this key's expectation")
	}
	e.Observed("ns/ds", "lost", false)
	if !e.Satisfied("ns/ds", lookup) {
		t.Fatal("Satisfied after the pod event: got false")
	}

	e.ExpectCreate("ns/ds", "never")
	now = now.Add(2 * time.Minute)
	if !e.Satisfied("ns/ds", lookup) {
		t.Fatal("an expectation older than the timeout still blocks")
	}
	e.ExpectCreate("ns/ds", "x")
	e.Forget("ns/ds")
	if !e.Satisfied("ns/ds", lookup) {
		t.Fatal("Satisfied after Forget: got false")
	}
}

// The three tests below came with the ReplicaSet controller's own
// expectations, which the kit's replaced: the same guarantees, stated
// through the kit's API (pods the cache does not show yet are absent from
// lookup).

func noPods(string) (types.UID, bool) { return "", false }

func TestExpectationsWaitForEveryCreation(t *testing.T) {
	now := time.Unix(1000, 0)
	e := NewExpectations(time.Minute, func() time.Time { return now })
	if !e.Satisfied("ns/a", noPods) {
		t.Fatal("satisfied with no record = false, want true")
	}
	for _, name := range []string{"p1", "p2", "p3"} {
		e.ExpectCreate("ns/a", name)
	}
	e.Observed("ns/a", "p1", false)
	e.Observed("ns/a", "p2", false)
	if e.Satisfied("ns/a", noPods) {
		t.Fatal("satisfied with 1 of 3 creations unseen = true, want false")
	}
	if !e.Satisfied("ns/b", noPods) {
		t.Fatal("another key is held up by ns/a's expectations")
	}
	e.Observed("ns/a", "p3", false)
	e.Observed("ns/a", "p3", false) // a late extra observation must leave no credit
	if !e.Satisfied("ns/a", noPods) {
		t.Fatal("satisfied after all creations seen = false, want true")
	}
	e.ExpectCreate("ns/a", "p4")
	if e.Satisfied("ns/a", noPods) {
		t.Fatal("an extra observation earlier left credit: satisfied = true, want false")
	}
}

func TestExpectationsCountEachDeletionOnce(t *testing.T) {
	now := time.Unix(1000, 0)
	e := NewExpectations(time.Minute, func() time.Time { return now })
	cache := map[string]types.UID{"p1": "u1", "p2": "u2"}
	lookup := func(name string) (types.UID, bool) { uid, ok := cache[name]; return uid, ok }
	e.ExpectDelete("ns/a", "p1", "u1")
	e.ExpectDelete("ns/a", "p2", "u2")
	e.Observed("ns/a", "p1", true) // seen going
	e.Observed("ns/a", "p1", true) // then gone: the same deletion
	if e.Satisfied("ns/a", lookup) {
		t.Fatal("satisfied with p2's deletion unseen = true, want false")
	}
	e.Observed("ns/a", "other", true)
	if e.Satisfied("ns/a", lookup) {
		t.Fatal("an unrelated pod's deletion satisfied the expectations")
	}
	e.Observed("ns/a", "p2", true)
	if !e.Satisfied("ns/a", lookup) {
		t.Fatal("satisfied after both deletions seen = false, want true")
	}
}

func TestExpectationsExpire(t *testing.T) {
	now := time.Unix(1000, 0)
	e := NewExpectations(time.Minute, func() time.Time { return now })
	e.ExpectCreate("ns/a", "p1")
	e.ExpectCreate("ns/a", "p2")
	now = now.Add(time.Minute)
	if e.Satisfied("ns/a", noPods) {
		t.Fatal("satisfied exactly at the timeout = true, want false")
	}
	now = now.Add(time.Second)
	if !e.Satisfied("ns/a", noPods) {
		t.Fatal("satisfied past the timeout = false, want true")
	}
	e.ExpectCreate("ns/a", "p3")
	e.Forget("ns/a")
	if !e.Satisfied("ns/a", noPods) {
		t.Fatal("satisfied after forget = false, want true")
	}
}
