package broker_test

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
)

// TestEmbeddedStopEndsFlushingConnections: a connection the broker has let
// go still flushes what it queued (for up to two seconds) to a peer that
// does not read; Stop ends it too, and returns only when no connection's
// send loop runs any more (the server's Stop checks that no goroutine of
// ours outlives it).
func TestEmbeddedStopEndsFlushingConnections(t *testing.T) {
	env := newEmbedded(t, nil)
	stuck := rawSubscribe(t, env, "stuck", mqtt.WatchPrefix+"#")
	defer stuck.Close()
	// 7.5 MiB: past the socket buffers between the broker and the stuck
	// peer (4 MiB at most here), within the broker's 8 MiB queue.
	payload := string(bytes.Repeat([]byte("x"), 32<<10))
	for range 240 {
		busPublish(t, env.bus, mqtt.WatchTopic("configmaps", "default", "big"), 0, payload)
	}
	waitUntil(t, "the send to the stuck client blocked", func() bool { return sendLoops("internal/poll.(*pollDesc).waitWrite") > 0 })
	if _, err := stuck.Write([]byte{0xe0, 0}); err != nil { // DISCONNECT
		t.Fatalf("stuck client: send DISCONNECT: %v", err)
	}
	waitUntil(t, "the broker lets the disconnected client go", func() bool { return !env.broker.SessionOpen("stuck") })
	if err := env.broker.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := sendLoops(""); n != 0 {
		t.Errorf("send loops running after Stop: got %d, want 0", n)
	}
}

// sendLoops counts the goroutines running a connection's send loop (and
// in a call of in, when in is not empty).
func sendLoops(in string) int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "(*brokerConn).sendLoop") && strings.Contains(g, in) {
			n++
		}
	}
	return n
}
