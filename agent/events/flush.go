package events

import (
	"context"
	"fmt"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// Publisher sends a payload on one of the node's topics; the agent's MQTT
// client has it. It fails while the node is not connected.
type Publisher interface {
	Publish(ctx context.Context, topic string, qos byte, payload []byte) error
}

// Run sends batches through pub until ctx ends: FlushDelay after the first
// change of a quiet spell, again when a throttled series' object gets its
// next token (sooner when something new comes meanwhile), and every retry
// interval while sending fails.
func (r *Recorder) Run(ctx context.Context, pub Publisher) {
	const retry = 5 * time.Second
	var wait <-chan time.Time
	var due time.Time // when wait fires
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.kick:
			if soon := r.cfg.Clock.Now().Add(r.cfg.FlushDelay); wait == nil || (!failing && due.After(soon)) {
				wait, due = r.cfg.Clock.After(r.cfg.FlushDelay), soon
			}
			continue
		case <-wait:
		}
		wait = nil
		next, err := r.Flush(ctx, pub)
		failing = err != nil
		switch {
		case err != nil && ctx.Err() == nil:
			r.cfg.Logger.Debug("events not sent; kept for later", "node", r.node, "err", err)
			wait, due = r.cfg.Clock.After(retry), r.cfg.Clock.Now().Add(retry)
		case next > 0:
			wait, due = r.cfg.Clock.After(next), r.cfg.Clock.Now().Add(next)
		}
	}
}

// Flush sends every pending series whose object has a token, in batches
// of at most mqtt.MaxEventsBatch, and returns how long until a throttled
// one may go (0: none waits). What fails to send stays pending.
func (r *Recorder) Flush(ctx context.Context, pub Publisher) (time.Duration, error) {
	for {
		report, sent, next := r.batch()
		if report == nil {
			return next, nil
		}
		payload, err := report.Encode()
		if err == nil {
			err = pub.Publish(ctx, mqtt.EventsTopic(r.node), 1, payload)
		}
		if err != nil {
			r.requeue(report, sent)
			return 0, fmt.Errorf("publish events: %w", err)
		}
		r.mu.Lock()
		r.stats.Reports++
		r.stats.Bytes += uint64(len(payload))
		r.stats.Sent += uint64(len(sent))
		r.mu.Unlock()
		if len(sent) < mqtt.MaxEventsBatch {
			return next, nil
		}
	}
}

// batch takes up to one report's worth of pending series whose objects
// have a token, and the dropped count; nil when there is nothing to send.
func (r *Recorder) batch() (*mqtt.EventReport, []*series, time.Duration) {
	now := r.cfg.Clock.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sweepBuckets(now)
	var sent []*series
	var next time.Duration
	report := &mqtt.EventReport{Node: r.node, Dropped: r.dropped}
	kept := r.pending[:0]
	for _, s := range r.pending {
		switch {
		case len(sent) == mqtt.MaxEventsBatch:
			kept = append(kept, s)
		case r.take(s.key.uid, now):
			s.pending, s.sentAt = false, now
			sent = append(sent, s)
			report.Events = append(report.Events, s.ev)
		default:
			r.stats.Throttled++
			kept = append(kept, s)
			if d := r.nextToken(s.key.uid, now); next == 0 || d < next {
				next = d
			}
		}
	}
	clear(r.pending[len(kept):])
	r.pending = kept
	if len(report.Events) == 0 && report.Dropped == 0 {
		return nil, nil, next
	}
	r.dropped = 0
	return report, sent, next
}

// requeue puts back what a failed publish carried: the series (unless a
// newer event queued them again) and the dropped count. Tokens spent on
// them stay spent.
func (r *Recorder) requeue(report *mqtt.EventReport, sent []*series) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropped += report.Dropped
	var back []*series
	for _, s := range sent {
		if !s.pending {
			s.pending = true
			back = append(back, s)
		}
	}
	r.pending = append(back, r.pending...)
}
