package nodeevents

import (
	"context"
	"fmt"

	"github.com/bramble-edge/bramble/mqtt"
)

// onReport runs on the Bus's delivery path: it checks the report and
// queues it, never blocking.
func (in *Ingest) onReport(topic string, payload []byte) {
	if in.stopped.Load() {
		return
	}
	node, ok := mqtt.NodeOfTopic(topic)
	if !ok || topic != mqtt.EventsTopic(node) {
		return
	}
	r, err := mqtt.DecodeEvents(payload)
	if err == nil && r.Node != node {
		err = fmt.Errorf("node: got %q, want %q (the topic's node)", r.Node, node)
	}
	if err != nil {
		in.stats.rejected.Add(1)
		in.log.Warn("events report refused", "node", node, "err", err)
		return
	}
	select {
	case in.queue <- nodeReport{node: node, report: r}:
		in.stats.reports.Add(1)
	default:
		in.stats.overflow.Add(1)
	}
}

// run writes the queued reports until ctx ends.
func (in *Ingest) run(ctx context.Context) {
	sweep := in.cfg.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case nr := <-in.queue:
			in.handle(ctx, nr)
		}
		if now := in.cfg.Now(); now.Sub(sweep) > sweepEvery {
			in.sweep(now)
			sweep = now
		}
	}
}

// handle writes one report's series, each within the node's rate cap.
func (in *Ingest) handle(ctx context.Context, nr nodeReport) {
	if nr.report.Dropped > 0 {
		in.stats.agentDropped.Add(nr.report.Dropped)
		in.droppedEvent(ctx, nr.node, nr.report.Dropped)
	}
	for i := range nr.report.Events {
		ev := &nr.report.Events[i]
		if !in.allow(nr.node) {
			in.stats.limited.Add(1)
			continue
		}
		if err := in.write(ctx, nr.node, ev); err != nil && ctx.Err() == nil {
			in.log.Debug("node event not written", "node", nr.node, "reason", ev.Reason,
				"object", ev.Object.Namespace+"/"+ev.Object.Name, "err", err)
		}
	}
}
