package bench

import (
	"runtime/metrics"
	"slices"
	"testing"
	"time"
)

// gcSplit sorts a fan-out's updates by whose collector completed a cycle
// while each one was delivered: none, the server's (this process), the
// agents' (the bench/hollow child, from its "gc" lines), or both. Their
// receipts' percentiles per class tell which process's collections make
// the tail, within one run and so at one machine load.
type gcSplit struct {
	receipts [4][]time.Duration
	updates  [4]int
	agents   uint64 // the agents' collections over the timed updates
}

var gcClasses = [4]string{"no collection", "the server's collection only", "the agents' collection only", "both processes' collections"}

// settle is how long after an update's last receipt its collections are
// read: the child reports its count every 5 ms. It is taken out of the
// pause between updates, so the pacing stays.
const settle = 20 * time.Millisecond

// serverGCs is this process's completed collections.
func serverGCs() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// gcMark is where the two counts stood when an update began.
type gcMark struct{ server, agents uint64 }

func markGCs(rec *revReceipts) gcMark { return gcMark{serverGCs(), rec.agentGCs.Load()} }

// add files an update's receipts by the collections since m.
func (g *gcSplit) add(b *testing.B, rec *revReceipts, m gcMark, got []time.Duration) {
	now := markGCs(rec)
	class := 0
	if now.server > m.server {
		class |= 1
	}
	if now.agents > m.agents {
		class |= 2
	}
	g.agents += now.agents - m.agents
	g.updates[class]++
	g.receipts[class] = append(g.receipts[class], got...)
	b.Logf("  collections during it: server %d, agents %d", now.server-m.server, now.agents-m.agents)
}

// report logs each class's receipts and reports the agents' collections
// per update and the p99 of the updates no collection overlapped.
func (g *gcSplit) report(b *testing.B, updates int) {
	for c, all := range g.receipts {
		if len(all) == 0 {
			continue
		}
		slices.Sort(all)
		b.Logf("updates with %s: %d; receipts p50 %.1f, p99 %.1f, max %.1f ms", gcClasses[c], g.updates[c],
			ms(all[len(all)/2]), ms(all[len(all)*99/100]), ms(all[len(all)-1]))
	}
	b.ReportMetric(float64(g.agents)/float64(updates), "agents-gc/update")
	if q := g.receipts[0]; len(q) > 0 {
		b.ReportMetric(ms(q[len(q)*99/100]), "p99-no-gc-ms")
	}
	b.ReportMetric(float64(g.updates[0]), "updates-no-gc")
}
