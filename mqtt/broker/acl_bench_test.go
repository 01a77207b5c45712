package broker

import (
	"testing"

	mochi "github.com/mochi-mqtt/server/v2"

	"github.com/bramble-edge/bramble/mqtt"
)

// BenchmarkACLCheckDelivery is the check mochi makes for every message it
// delivers to a node (and every one a node publishes): per delivery, so
// it should neither allocate nor run the name validation again.
func BenchmarkACLCheckDelivery(b *testing.B) {
	h := &authHook{}
	cl := &mochi.Client{}
	cl.Properties.Username = []byte(identity{kind: kindNode, name: "raspberrypi-kitchen-0042"}.key())
	topic := mqtt.DesiredTopic("raspberrypi-kitchen-0042")
	b.ReportAllocs()
	for b.Loop() {
		if !h.OnACLCheck(cl, topic, false) || !h.OnACLCheck(cl, topic, true) {
			b.Fatal("refused")
		}
	}
}
