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

// countScheduledEvents follows the stored core/v1 Events after rev until
// want Scheduled Events about pods named prefix-N were created (resuming a
// watch that is cut off); the channel then gives the time the last one was
// seen, or is closed without one when ctx ends first. The watch is left
// to ctx.
func countScheduledEvents(ctx context.Context, c *minicluster.Cluster, rev int64, want int, prefix string) <-chan time.Time {
	res, _ := api.Lookup("", "v1", "events")
	done := make(chan time.Time, 1)
	go func() {
		defer close(done)
		seen := 0
		for seen < want {
			watch, err := c.Store.Watch(ctx, res.Prefix(""), rev)
			if err != nil {
				return
			}
			for evs := range watch {
				seen += countScheduled(evs, prefix)
				rev = evs[len(evs)-1].KV.ModRevision
				if seen >= want {
					break
				}
			}
			if ctx.Err() != nil {
				return
			}
		}
		done <- time.Now()
	}()
	return done
}

// reportScheduledEvents waits for countScheduledEvents and reports the
// server's CPU per pod from cpu0 to then (server-cpu-us/pod-events) and
// how long after lastBind the last Event was stored (events-after-ms): the
// scheduler writes Events apart from the bindings, so some of their cost
// can fall after the binding window.
func reportScheduledEvents(b *testing.B, events <-chan time.Time, pods int, lastBind time.Time, cpu0 time.Duration) {
	var at time.Time
	select {
	case t, ok := <-events:
		if !ok {
			b.Fatal("event watch failed")
		}
		at = t
	case <-time.After(5 * time.Minute):
		b.Fatal("the Scheduled events were not all stored within 5 minutes")
	}
	cpu := processCPU(b) - cpu0
	b.ReportMetric(float64(cpu.Microseconds())/float64(pods), "server-cpu-us/pod-events")
	b.ReportMetric(ms(max(0, at.Sub(lastBind))), "events-after-ms")
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
