package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/bench/minicluster"
	"github.com/bramble-edge/bramble/datastore"
)

// watchEvents watches the stored core/v1 Events after rev until ctx ends.
func watchEvents(b *testing.B, ctx context.Context, c *minicluster.Cluster, rev int64) <-chan []datastore.Event {
	res, _ := api.Lookup("", "v1", "events")
	watch, err := c.Store.Watch(ctx, res.Prefix(""), rev)
	if err != nil {
		b.Fatal(err)
	}
	return watch
}

// reportScheduledEvents waits for the Scheduled Event of want pods named
// prefix-N and reports the server's CPU per pod from cpu0 to the last of
// them (server-cpu-us/pod-events) and how long after lastBind it was
// stored (events-after-ms): the scheduler writes Events apart from the
// bindings, so some of their cost can fall after the binding window.
func reportScheduledEvents(b *testing.B, watch <-chan []datastore.Event, want int, prefix string, lastBind time.Time, cpu0 time.Duration) {
	seen := 0
	timeout := time.After(5 * time.Minute)
	for seen < want {
		select {
		case evs, ok := <-watch:
			if !ok {
				b.Fatal("event watch closed")
			}
			seen += countScheduled(evs, prefix)
		case <-timeout:
			b.Fatalf("only %d of %d Scheduled events stored within 5 minutes", seen, want)
		}
	}
	cpu := processCPU(b) - cpu0
	b.ReportMetric(float64(cpu.Microseconds())/float64(want), "server-cpu-us/pod-events")
	b.ReportMetric(ms(max(0, time.Since(lastBind))), "events-after-ms")
}

var scheduledReason = []byte(`"reason":"Scheduled"`)

// countScheduled counts the created Scheduled Events about pods named prefix-N.
func countScheduled(evs []datastore.Event, prefix string) int {
	n := 0
	for _, ev := range evs {
		name := ev.KV.Key[strings.LastIndexByte(ev.KV.Key, '/')+1:]
		if ev.Type == datastore.EventCreate && strings.HasPrefix(name, prefix+"-") && bytes.Contains(ev.KV.Value, scheduledReason) {
			n++
		}
	}
	return n
}
