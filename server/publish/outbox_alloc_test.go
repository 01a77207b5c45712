package publish

import (
	"fmt"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
)

// TestOutboxQueuesWithoutAllocating: an outbox that holds one Event at a
// time (a fan-out's usual case) reuses its queue's array.
func TestOutboxQueuesWithoutAllocating(t *testing.T) {
	o := &outbox{limit: 8, running: true} // running: push starts no goroutine
	m := outMsg{rev: 2, prev: 1, payload: []byte("{}")}
	allocs := testing.AllocsPerRun(100, func() {
		if !o.push(m) {
			t.Fatal("push refused")
		}
		if got, ok := o.next(); !ok || got.rev != m.rev {
			t.Fatalf("next = %+v, %v; want rev %d", got, ok, m.rev)
		}
	})
	if allocs != 0 {
		t.Errorf("push and next: %.1f allocations, want 0", allocs)
	}
}

// TestFanoutFirstChangesShareOneSlab: one change to each of a thousand
// nodes makes a handful of allocations, not one per node, and a node's
// second change does not overwrite the next node's first.
func TestFanoutFirstChangesShareOneSlab(t *testing.T) {
	nodes := make([]string, 1000)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("n-%d", i)
	}
	c := change{ref: mqtt.ObjectRef{Resource: "configmaps", Namespace: "ns", Name: "cm"}}
	allocs := testing.AllocsPerRun(10, func() {
		var f fanout
		f.grow(len(nodes))
		for _, n := range nodes {
			f.add(n, c)
		}
	})
	if allocs > 20 {
		t.Errorf("first changes to %d nodes: %.0f allocations, want at most 20", len(nodes), allocs)
	}
	var f fanout
	for _, n := range nodes[:3] {
		f.add(n, change{ref: mqtt.ObjectRef{Name: "first-" + n}})
	}
	f.add("n-0", change{ref: mqtt.ObjectRef{Name: "second"}})
	if got := f.by["n-1"][0].ref.Name; got != "first-n-1" {
		t.Errorf("n-1's change: got %s, want first-n-1", got)
	}
	if got := f.by["n-0"]; len(got) != 2 || got[0].ref.Name != "first-n-0" || got[1].ref.Name != "second" {
		t.Errorf("n-0's changes: got %+v, want first-n-0, second", got)
	}
}
