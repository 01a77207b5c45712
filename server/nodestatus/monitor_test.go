package nodestatus_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/nodestatus"
)

// node reads a Node from the store (nil when absent).
func (e *env) node(name string) *corev1.Node {
	e.t.Helper()
	res, _ := api.Lookup("", "v1", "nodes")
	kv, err := e.store.Get(context.Background(), res.Key("", name))
	if err != nil {
		return nil
	}
	obj, _, err := api.DecodeJSON(res, kv.Value, false)
	if err != nil {
		e.t.Fatal(err)
	}
	return obj.(*corev1.Node)
}

func condition(n *corev1.Node, t corev1.NodeConditionType) corev1.NodeCondition {
	if n != nil {
		for _, c := range n.Status.Conditions {
			if c.Type == t {
				return c
			}
		}
	}
	return corev1.NodeCondition{}
}

// waitCondition waits until node's condition t has status s.
// waitCondition waits until the stored node shows the condition, and until
// the store's current revision has caught up with that write (a reader can
// see a commit a moment before CurrentRevision reports it), so revision
// counts taken afterwards start from it.
func (e *env) waitCondition(name string, t corev1.NodeConditionType, s corev1.ConditionStatus) *corev1.Node {
	e.t.Helper()
	var n *corev1.Node
	waitUntil(e.t, "node "+name+" "+string(t)+"="+string(s), func() bool {
		n = e.node(name)
		return condition(n, t).Status == s
	})
	res, _ := api.Lookup("", "v1", "nodes")
	kv, err := e.store.Get(context.Background(), res.Key("", name))
	if err != nil {
		e.t.Fatal(err)
	}
	waitUntil(e.t, "the current revision to reach the node's write", func() bool { return e.rev() >= kv.ModRevision })
	return n
}

func TestFirstHeartbeatRegistersNode(t *testing.T) {
	e := newEnv(t, nodestatus.Config{GracePeriod: time.Hour})
	e.connect(t, "pi-1").beat(t, nil)
	n := e.waitCondition("pi-1", corev1.NodeReady, corev1.ConditionTrue)

	if got := n.Labels["kubernetes.io/arch"]; got != "arm64" {
		t.Errorf("label kubernetes.io/arch: got %q, want arm64", got)
	}
	if len(n.Spec.Taints) != 1 || n.Spec.Taints[0].Key != "example.com/edge" {
		t.Errorf("taints: got %+v, want the agent's example.com/edge", n.Spec.Taints)
	}
	if got := n.Status.Capacity.Cpu().String(); got != "4" {
		t.Errorf("capacity cpu: got %s, want 4", got)
	}
	if got := n.Status.NodeInfo.Architecture; got != "arm64" {
		t.Errorf("nodeInfo.architecture: got %q, want arm64", got)
	}
	if got := condition(n, corev1.NodeReady).Reason; got != "AgentReady" {
		t.Errorf("Ready reason: got %q, want AgentReady", got)
	}
	if len(n.Status.Addresses) != 2 {
		t.Errorf("addresses: got %+v, want the two reported", n.Status.Addresses)
	}
}

// TestSteadyHeartbeatsWriteNothing: many heartbeats whose figures move a
// little (temperature, messages, memory within the tolerance) write
// nothing; the next transition is exactly one write.
func TestSteadyHeartbeatsWriteNothing(t *testing.T) {
	e := newEnv(t, nodestatus.Config{GracePeriod: time.Hour})
	a := e.connect(t, "pi-1")
	a.beat(t, nil)
	e.waitCondition("pi-1", corev1.NodeReady, corev1.ConditionTrue)
	// The monitor counts its create just after the write returns.
	waitUntil(t, "the node's create to be counted", func() bool { return e.mon.Stats().NodeWrites >= 1 })
	before, writes := e.rev(), e.mon.Stats().NodeWrites

	const beats = 60
	for i := range beats {
		a.beat(t, func(hb *mqtt.Heartbeat) {
			jitter := resource.MustParse("4Gi")
			jitter.Sub(*resource.NewQuantity(int64(i%7)<<20, resource.BinarySI)) // up to 6 MiB less
			hb.Status.Allocatable[corev1.ResourceMemory] = jitter
		})
	}
	waitUntil(t, "all heartbeats counted", func() bool { return e.mon.Stats().Heartbeats >= beats+1 })
	a.beat(t, func(hb *mqtt.Heartbeat) { hb.Status.Conditions[1].Status = corev1.ConditionTrue })
	e.waitCondition("pi-1", corev1.NodeMemoryPressure, corev1.ConditionTrue)

	if got := e.rev() - before; got != 1 {
		t.Errorf("datastore writes over %d steady heartbeats and one transition: got %d, want 1", beats, got)
	}
	if got := e.mon.Stats().NodeWrites - writes; got != 1 {
		t.Errorf("node writes: got %d, want 1", got)
	}

	before = e.rev()
	a.beat(t, func(hb *mqtt.Heartbeat) {
		hb.Status.Conditions[1].Status = corev1.ConditionTrue
		hb.Status.Allocatable[corev1.ResourceMemory] = resource.MustParse("3Gi") // 25 % less
	})
	waitUntil(t, "allocatable memory 3Gi", func() bool {
		return e.node("pi-1").Status.Allocatable.Memory().Cmp(resource.MustParse("3Gi")) == 0
	})
	if got := e.rev() - before; got != 1 {
		t.Errorf("writes for a 25%% allocatable change: got %d, want 1", got)
	}
}

// TestSilentNodeTurnsUnknownOnce: heartbeats stop; after the grace period
// the node is Ready=Unknown, written once; a heartbeat makes it Ready.
func TestSilentNodeTurnsUnknownOnce(t *testing.T) {
	e := newEnv(t, nodestatus.Config{GracePeriod: 2 * time.Second, CheckInterval: 100 * time.Millisecond})
	a := e.connect(t, "pi-1")
	a.beat(t, nil)
	e.waitCondition("pi-1", corev1.NodeReady, corev1.ConditionTrue)
	before := e.rev()

	n := e.waitCondition("pi-1", corev1.NodeReady, corev1.ConditionUnknown)
	ready := condition(n, corev1.NodeReady)
	if ready.Reason != nodestatus.ReasonNodeStatusUnknown || ready.Message != nodestatus.MessageStatusUnknown {
		t.Errorf("Ready: got reason %q message %q, want %q %q", ready.Reason, ready.Message,
			nodestatus.ReasonNodeStatusUnknown, nodestatus.MessageStatusUnknown)
	}
	if got := condition(n, corev1.NodeMemoryPressure).Status; got != corev1.ConditionUnknown {
		t.Errorf("MemoryPressure: got %s, want Unknown", got)
	}
	if l, _ := e.mon.Latest("pi-1"); !l.Lost {
		t.Error("Latest: got Lost false, want true")
	}
	time.Sleep(time.Second) // ten more lease checks
	if got := e.rev() - before; got != 1 {
		t.Errorf("writes while the node stayed silent: got %d, want 1", got)
	}

	a.beat(t, nil)
	e.waitCondition("pi-1", corev1.NodeReady, corev1.ConditionTrue)
	if got := e.rev() - before; got != 2 {
		t.Errorf("writes after the node came back: got %d, want 2", got)
	}
}

// TestLastWillShortensTheWait: a node whose connection drops (the broker
// publishes its Last Will) is Ready=Unknown long before the grace period;
// presence "online" alone does not make it Ready again, a heartbeat does.
func TestLastWillShortensTheWait(t *testing.T) {
	e := newEnv(t, nodestatus.Config{GracePeriod: time.Hour, OfflineConfirm: 300 * time.Millisecond,
		CheckInterval: 100 * time.Millisecond})
	a := e.connect(t, "pi-1")
	a.beat(t, nil)
	e.waitCondition("pi-1", corev1.NodeReady, corev1.ConditionTrue)

	a.cut()
	e.waitCondition("pi-1", corev1.NodeReady, corev1.ConditionUnknown)
	if l, _ := e.mon.Latest("pi-1"); !l.Offline {
		t.Error("Latest: got Offline false, want true")
	}

	b := e.connect(t, "pi-1") // publishes presence "online", no heartbeat yet
	time.Sleep(500 * time.Millisecond)
	if got := condition(e.node("pi-1"), corev1.NodeReady).Status; got != corev1.ConditionUnknown {
		t.Fatalf("Ready after presence online without a heartbeat: got %s, want Unknown", got)
	}
	b.beat(t, nil)
	e.waitCondition("pi-1", corev1.NodeReady, corev1.ConditionTrue)
}

// TestRestartedServerLosesSilentNodes: a node that stays silent across a
// server restart turns Ready=Unknown after the new server's grace period.
func TestRestartedServerLosesSilentNodes(t *testing.T) {
	cfg := nodestatus.Config{GracePeriod: 2 * time.Second, CheckInterval: 100 * time.Millisecond}
	e := newEnv(t, cfg)
	e.connect(t, "pi-1").beat(t, nil)
	e.waitCondition("pi-1", corev1.NodeReady, corev1.ConditionTrue)
	e.mon.Stop()
	e.startMonitor(cfg)
	if got := e.mon.Stats().Nodes; got != 1 {
		t.Fatalf("nodes tracked after restart: got %d, want 1", got)
	}
	e.waitCondition("pi-1", corev1.NodeReady, corev1.ConditionUnknown)
}

// TestBadMessagesAreRejected: a payload that does not decode, or that names
// another node than its topic, changes nothing.
func TestBadMessagesAreRejected(t *testing.T) {
	e := newEnv(t, nodestatus.Config{GracePeriod: time.Hour})
	a := e.connect(t, "pi-1")
	a.publish(t, mqtt.StatusTopic("pi-1"), false, []byte(`{"node":"pi-1"}`))
	a.beat(t, func(hb *mqtt.Heartbeat) { hb.Node = "pi-2" })
	a.publish(t, mqtt.PodStatusTopic("pi-1"), false, []byte(`not json`))
	a.publish(t, mqtt.PresenceTopic("pi-1"), false, []byte(`maybe`))
	waitUntil(t, "four rejections", func() bool { return e.mon.Stats().Rejected == 4 })
	if n := e.node("pi-1"); n != nil {
		t.Errorf("node pi-1: got created from bad heartbeats, want absent")
	}
	if n := e.node("pi-2"); n != nil {
		t.Errorf("node pi-2: got created by pi-1's heartbeat, want absent")
	}
}

// TestDeletedNodeStaysDeletedUntilItConnectsAgain: heartbeats still coming
// over a deleted Node's old connection do not bring it back; once the node
// connects again (after a new join) its next heartbeat registers it.
func TestDeletedNodeStaysDeletedUntilItConnectsAgain(t *testing.T) {
	e := newEnv(t, nodestatus.Config{GracePeriod: time.Hour})
	a := e.connect(t, "pi-1")
	a.beat(t, nil)
	e.waitCondition("pi-1", corev1.NodeReady, corev1.ConditionTrue)
	nodes, _ := api.Lookup("", "v1", "nodes")
	if _, err := e.api.Registry().Delete(context.Background(), nodes, "", "pi-1", nil); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the Monitor forgets pi-1", func() bool { _, ok := e.mon.Latest("pi-1"); return !ok })
	beats := e.mon.Stats().Heartbeats
	for range 5 {
		a.beat(t, nil)
	}
	waitUntil(t, "five heartbeats counted", func() bool { return e.mon.Stats().Heartbeats == beats+5 })
	if n := e.node("pi-1"); n != nil {
		t.Fatal("node pi-1: re-created by heartbeats of its old connection, want deleted")
	}
	e.connect(t, "pi-1").beat(t, nil)
	e.waitCondition("pi-1", corev1.NodeReady, corev1.ConditionTrue)
}

// TestNodeCreatedByOthersGetsALease: a Node made with the API (kubectl
// create node) and never heard of turns Ready=Unknown after the grace
// period.
func TestNodeCreatedByOthersGetsALease(t *testing.T) {
	e := newEnv(t, nodestatus.Config{GracePeriod: time.Second, CheckInterval: 100 * time.Millisecond})
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "manual"}}
	if _, err := e.api.Registry().Client().Create(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	got := e.waitCondition("manual", corev1.NodeReady, corev1.ConditionUnknown)
	if r := condition(got, corev1.NodeReady).Reason; r != nodestatus.ReasonNodeStatusUnknown {
		t.Errorf("Ready reason: got %q, want %q", r, nodestatus.ReasonNodeStatusUnknown)
	}
}

// TestNodeWatchRelistsAfterCompaction: while the Monitor's watch of the
// Nodes is down, a Node is deleted, another is created and the history
// is compacted; the Monitor lists again and catches up on both instead of
// jumping past them.
func TestNodeWatchRelistsAfterCompaction(t *testing.T) {
	e := newEnv(t, nodestatus.Config{GracePeriod: time.Hour})
	ctx := context.Background()
	e.connect(t, "pi-1").beat(t, nil)
	e.waitCondition("pi-1", corev1.NodeReady, corev1.ConditionTrue)
	nodesPrefix := "/registry/core/nodes/"
	e.faults.FailWatches(nodesPrefix, 1<<20, errors.New("injected watch failure"))
	if e.faults.CutWatches(nodesPrefix) == 0 {
		t.Fatal("no watch of the Nodes to cut off")
	}
	nodes, _ := api.Lookup("", "v1", "nodes")
	if _, err := e.api.Registry().Delete(ctx, nodes, "", "pi-1", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.api.Registry().Client().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "manual"}}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Compact(ctx, e.rev()); err != nil {
		t.Fatal(err)
	}
	e.faults.Heal(nodesPrefix)
	waitUntil(t, "the Monitor forgets pi-1", func() bool { _, ok := e.mon.Latest("pi-1"); return !ok })
	waitUntil(t, "the Monitor tracks manual", func() bool { _, ok := e.mon.Latest("manual"); return ok })
}
