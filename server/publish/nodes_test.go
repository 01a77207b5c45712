package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// nodeObject is a Node as node status and node IPAM write it.
func nodeObject(name, podCIDR string, ready corev1.ConditionStatus) *corev1.Node {
	return &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{
			mqtt.AnnotationVXLANMAC: "02:00:00:00:00:01", mqtt.AnnotationNodeIP: "10.0.0.1"}},
		Spec: corev1.NodeSpec{PodCIDR: podCIDR, PodCIDRs: []string{podCIDR}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}}}
}

// putNode writes a Node to the store (cluster scoped: no namespace).
func putNode(t testing.TB, store datastore.Store, n *corev1.Node) int64 {
	t.Helper()
	key := "/registry/core/nodes/" + n.Name
	data, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var rev int64
	if cur, gerr := store.Get(ctx, key); gerr == nil {
		rev, err = store.Update(ctx, key, data, cur.ModRevision)
	} else {
		rev, err = store.Create(ctx, key, data)
	}
	if err != nil {
		t.Fatalf("write %s: %v", key, err)
	}
	return rev
}

func nodeRef(name string) mqtt.ObjectRef {
	return mqtt.ObjectRef{Resource: mqtt.ResourceNodes, Name: name}
}

// heldNode is the Node a replayed stream leaves node holding of name.
func heldNode(t testing.TB, bus *recordingBus, node, name string) (*corev1.Node, bool) {
	t.Helper()
	m, _ := replay(t, bus.events(t, node), 0)
	o, ok := m.Get(nodeRef(name))
	if !ok {
		return nil, false
	}
	var n corev1.Node
	if err := json.Unmarshal(o.JSON, &n); err != nil {
		t.Fatal(err)
	}
	return &n, true
}

// TestNodesReachEveryNode: every node holds every Node; a status-only
// write reaches nobody; a podCIDR change reaches everyone; a deleted Node
// leaves every view; a relist (full or since a revision) agrees.
func TestNodesReachEveryNode(t *testing.T) {
	store, bus := openStore(t), newRecordingBus()
	p := startPublisher(t, store, bus, Config{})
	names := []string{"n1", "n2", "n3"}
	for i, name := range names {
		putNode(t, store, nodeObject(name, fmt.Sprintf("10.42.%d.0/24", i), corev1.ConditionTrue))
	}
	waitFor(t, "n3's Node at every node", func() bool {
		for _, n := range names {
			if _, ok := heldNode(t, bus, n, "n3"); !ok {
				return false
			}
		}
		return true
	})
	before := bus.topics()
	putNode(t, store, nodeObject("n2", "10.42.1.0/24", corev1.ConditionFalse)) // heartbeat churn
	rev := putNode(t, store, nodeObject("n2", "10.42.9.0/24", corev1.ConditionFalse))
	waitFor(t, "n2's new podCIDR at n1", func() bool {
		n, ok := heldNode(t, bus, "n1", "n2")
		return ok && n.Spec.PodCIDR == "10.42.9.0/24"
	})
	after := bus.topics()
	for _, n := range names {
		if got := after[mqtt.DesiredTopic(n)] - before[mqtt.DesiredTopic(n)]; got != 1 {
			t.Errorf("%s: got %d messages for a status write and a podCIDR change, want 1", n, got)
		}
	}
	n, _ := heldNode(t, bus, "n3", "n2")
	if len(n.Status.Conditions) != 0 || n.Annotations[mqtt.AnnotationVXLANMAC] == "" || len(n.Status.Addresses) != 1 {
		t.Errorf("sent Node: got %+v, want only what routes need", n)
	}
	putNode(t, store, nodeObject("n2", "10.42.9.0/24", corev1.ConditionTrue)) // churn: not in a catch-up
	if _, _, err := store.Delete(context.Background(), "/registry/core/nodes/n3", 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "n3 gone from n1", func() bool { _, ok := heldNode(t, bus, "n1", "n3"); return !ok })
	full, err := p.View(context.Background(), "n1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := viewRefs(full); len(got) != 2 || !got[nodeRef("n1")] || !got[nodeRef("n2")] {
		t.Errorf("full view of n1: got %v, want Nodes n1 and n2", got)
	}
	delta, err := p.View(context.Background(), "n1", rev)
	if err != nil {
		t.Fatal(err)
	}
	if got := viewRefs(delta); len(got) != 1 || !got[nodeRef("n3")] {
		t.Errorf("view of n1 since %d: got %v, want n3's deletion only", rev, got)
	}
}

func viewRefs(v *mqtt.View) map[mqtt.ObjectRef]bool {
	out := map[mqtt.ObjectRef]bool{}
	for _, c := range v.Changes {
		out[c.ObjectRef] = true
	}
	return out
}

// TestNodesOnlyForRoutingAgents: a node whose agent routes nothing (no
// node IP annotation: --network-backend none, hollow agents) is sent no
// Nodes; once it routes it gets every Node, live and in a view since a
// revision before the switch.
func TestNodesOnlyForRoutingAgents(t *testing.T) {
	store, bus := openStore(t), newRecordingBus()
	p := startPublisher(t, store, bus, Config{})
	putNode(t, store, nodeObject("r1", "10.42.1.0/24", corev1.ConditionTrue))
	quiet := nodeObject("q1", "10.42.2.0/24", corev1.ConditionTrue)
	delete(quiet.Annotations, mqtt.AnnotationNodeIP)
	since := putNode(t, store, quiet)
	waitFor(t, "q1's Node at r1", func() bool { _, ok := heldNode(t, bus, "r1", "q1"); return ok })
	if n := len(bus.events(t, "q1")); n != 0 {
		t.Fatalf("q1 routes nothing but got %d events", n)
	}
	putNode(t, store, nodeObject("q1", "10.42.2.0/24", corev1.ConditionTrue)) // now routes
	waitFor(t, "r1's Node at q1", func() bool { _, ok := heldNode(t, bus, "q1", "r1"); return ok })
	v, err := p.View(context.Background(), "q1", since)
	if err != nil {
		t.Fatal(err)
	}
	if got := viewRefs(v); len(got) != 2 || !got[nodeRef("r1")] || !got[nodeRef("q1")] {
		t.Errorf("view of q1 since %d: got %v, want Nodes r1 and q1", since, got)
	}
}
