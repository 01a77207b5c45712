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
