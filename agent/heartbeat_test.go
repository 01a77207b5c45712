package agent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/nodeinfo"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
)

// heartbeatRecorder refuses the first heartbeat as a client that is still
// connecting does, then keeps the decoded ones.
type heartbeatRecorder struct {
	mu    sync.Mutex
	tries int
	got   []*mqtt.Heartbeat
}

func (h *heartbeatRecorder) Publish(_ context.Context, topic string, qos byte, payload []byte) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tries++
	if h.tries == 1 {
		return fmt.Errorf("publish %s: %w", topic, client.ErrNotConnected)
	}
	if topic != mqtt.StatusTopic("pi") || qos != 0 {
		return fmt.Errorf("got topic %s qos %d, want %s qos 0", topic, qos, mqtt.StatusTopic("pi"))
	}
	hb, err := mqtt.DecodeHeartbeat(payload)
	if err != nil {
		return err
	}
	h.got = append(h.got, hb)
	return nil
}

// TestHeartbeatsRetrySoonWhenNotConnected collects the real machine's
// figures; with an hour's interval, only the quick retry after "not
// connected" can deliver a heartbeat.
func TestHeartbeatsRetrySoonWhenNotConnected(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &heartbeatRecorder{}
	cfg := nodeinfo.Config{NodeName: "pi", NodeIP: "10.0.0.2", DataDir: t.TempDir()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		heartbeats(ctx, rec, cfg, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		rec.mu.Lock()
		n, tries := len(rec.got), rec.tries
		rec.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no heartbeat after the first was refused; tries %d", tries)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	<-done
	if hb := rec.got[0]; hb.Node != "pi" || hb.Seq != 2 || hb.IntervalSeconds != 3600 {
		t.Errorf("got node %q seq %d interval %d, want pi 2 3600", hb.Node, hb.Seq, hb.IntervalSeconds)
	}
}
