package nodestatus_test

import (
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/nodestatus"
)

// TestAgentAnnotationsFollowHeartbeats: the vxlan MAC and node IP a
// heartbeat carries land on the Node (at registration and when they
// change), steady ones write nothing, and one left out is removed.
func TestAgentAnnotationsFollowHeartbeats(t *testing.T) {
	e := newEnv(t, nodestatus.Config{GracePeriod: time.Hour})
	a := e.connect(t, "pi-1")
	set := func(mac string) func(*mqtt.Heartbeat) {
		return func(hb *mqtt.Heartbeat) {
			hb.Annotations = map[string]string{mqtt.AnnotationNodeIP: "10.0.0.5"}
			if mac != "" {
				hb.Annotations[mqtt.AnnotationVXLANMAC] = mac
			}
		}
	}
	a.beat(t, set("02:00:00:00:00:01"))
	waitUntil(t, "the MAC annotation", func() bool {
		n := e.node("pi-1")
		return n != nil && n.Annotations[mqtt.AnnotationVXLANMAC] == "02:00:00:00:00:01" &&
			n.Annotations[mqtt.AnnotationNodeIP] == "10.0.0.5"
	})
	waitUntil(t, "the node's writes to be counted", func() bool { return e.mon.Stats().Heartbeats >= 1 })
	before := e.rev()
	for range 5 {
		a.beat(t, set("02:00:00:00:00:01"))
	}
	a.beat(t, set("02:00:00:00:00:02"))
	// The store's revision is set just after its commit, which Get can
	// already read: wait for both.
	waitUntil(t, "the new MAC", func() bool {
		return e.node("pi-1").Annotations[mqtt.AnnotationVXLANMAC] == "02:00:00:00:00:02" && e.rev() > before
	})
	if got := e.rev() - before; got != 1 {
		t.Errorf("writes for 5 steady heartbeats and one MAC change: got %d, want 1", got)
	}
	a.beat(t, set(""))
	waitUntil(t, "the MAC annotation removed", func() bool {
		_, has := e.node("pi-1").Annotations[mqtt.AnnotationVXLANMAC]
		return !has
	})
}
