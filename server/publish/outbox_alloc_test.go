package publish

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
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
	if got := f.of("n-1")[0].ref.Name; got != "first-n-1" {
		t.Errorf("n-1's change: got %s, want first-n-1", got)
	}
	if got := f.of("n-0"); len(got) != 2 || got[0].ref.Name != "first-n-0" || got[1].ref.Name != "second" {
		t.Errorf("n-0's changes: got %+v, want first-n-0, second", got)
	}
}

// TestFanoutKeepsEachNodesChanges: past smallFanout nodes (where the
// places move to a map) each node still has its changes, in order.
func TestFanoutKeepsEachNodesChanges(t *testing.T) {
	var f fanout
	const nodes = 3 * smallFanout
	for round := range 3 {
		for i := range nodes {
			f.add(fmt.Sprintf("n-%d", i), change{ref: mqtt.ObjectRef{Name: fmt.Sprintf("%d-%d", i, round)}})
		}
	}
	if len(f.order) != nodes {
		t.Fatalf("order: got %d nodes, want %d", len(f.order), nodes)
	}
	for i := range nodes {
		node := fmt.Sprintf("n-%d", i)
		if f.order[i] != node {
			t.Errorf("order[%d]: got %s, want %s", i, f.order[i], node)
		}
		got := f.of(node)
		if len(got) != 3 {
			t.Fatalf("%s: got %d changes, want 3", node, len(got))
		}
		for round, c := range got {
			if want := fmt.Sprintf("%d-%d", i, round); c.ref.Name != want {
				t.Errorf("%s change %d: got %s, want %s", node, round, c.ref.Name, want)
			}
		}
	}
	if f.of("absent") != nil {
		t.Error("a node with no changes has some")
	}
}

// TestFanoutOneNodeAllocates: an event for one node (a pod's) makes no
// map: its slices only.
func TestFanoutOneNodeAllocates(t *testing.T) {
	c := change{ref: mqtt.ObjectRef{Resource: "pods", Namespace: "ns", Name: "p"}}
	allocs := testing.AllocsPerRun(100, func() {
		f := fanout{}
		f.add("n-1", c)
		if len(f.of("n-1")) != 1 {
			t.Fatal("change lost")
		}
	})
	if allocs > 3 {
		t.Errorf("one change to one node: %.0f allocations, want at most 3", allocs)
	}
}

// TestEncoderEncodesEachChangeOnce: a change asked for again gets the
// same parts, the first change and later ones alike.
func TestEncoderEncodesEachChangeOnce(t *testing.T) {
	var enc encoder
	var changes []change
	for i := range 3 {
		kv := &datastore.KeyValue{Key: fmt.Sprint("/registry/core/configmaps/ns/cm-", i),
			Value: []byte(fmt.Sprintf(`{"metadata":{"name":"cm-%d","resourceVersion":"%d"}}`, i, i+1)), ModRevision: int64(i + 1)}
		changes = append(changes, change{mqtt.Added, mqtt.ObjectRef{Resource: "configmaps", Namespace: "ns", Name: fmt.Sprint("cm-", i)}, kv})
	}
	first := map[int][][]byte{}
	for round := range 2 {
		for i, c := range changes {
			got, err := enc.changeJSON(c)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := enc.encodeChange(c)
			if !bytes.Equal(bytes.Join(got, nil), bytes.Join(want, nil)) {
				t.Errorf("change %d: got %s, want %s", i, bytes.Join(got, nil), bytes.Join(want, nil))
			}
			if round == 0 {
				first[i] = got
			} else if &got[0] != &first[i][0] {
				t.Errorf("change %d was encoded again", i)
			}
		}
	}
}

// of is node's changes (the tests' view of a fanout).
func (f *fanout) of(node string) []change {
	if i := f.place(node); i >= 0 {
		return f.lists[i]
	}
	return nil
}
