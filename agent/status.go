package agent

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/nodeinfo"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
)

// Publisher sends a payload on one of the node's topics; *client.Client
// has it.
type Publisher interface {
	Publish(ctx context.Context, topic string, qos byte, payload []byte) error
}

var _ Publisher = (*client.Client)(nil)

// statusBatch collects pod statuses from the pod manager and publishes
// them in batches on the node's pods/status topic (QoS 1). Only the latest
// status of each pod is kept; a batch that fails stays queued unless a
// newer status replaced it. Static pods are never reported: they are no
// API objects.
//
// The last status sent of each pod is kept too, and sent again after every
// reconnect (resend): the broker acknowledging a report does not mean the
// server wrote it (a server stopped or killed just after may not have), and
// a pod whose status does not change would otherwise never be reported
// again. The server writes only what differs from the stored pod, so a
// repeat costs it a comparison.
type statusBatch struct {
	node   string
	delay  time.Duration
	logger *slog.Logger
	static func(types.UID) bool
	// alive reports whether a pod is still the agent's (nil: all are); the
	// last statuses of the others are forgotten.
	alive func(types.UID) bool

	mu      sync.Mutex
	pending map[string]mqtt.PodStatusEntry
	sent    map[string]mqtt.PodStatusEntry
	pruneAt int // len(sent) at which to forget the statuses of gone pods
	pub     Publisher
	kick    chan struct{}
}

// minPruneAt is the fewest last statuses kept before gone pods' are looked for.
const minPruneAt = 64

func newStatusBatch(node string, delay time.Duration, static func(types.UID) bool, logger *slog.Logger) *statusBatch {
	return &statusBatch{node: node, delay: delay, logger: logger, static: static,
		pending: map[string]mqtt.PodStatusEntry{}, sent: map[string]mqtt.PodStatusEntry{},
		pruneAt: minPruneAt, kick: make(chan struct{}, 1)}
}

// resend queues the last status sent of every pod still the agent's,
// unless a newer one is queued already: the MQTT client's OnConnect.
func (b *statusBatch) resend() {
	b.mu.Lock()
	b.prune()
	for k, e := range b.sent {
		if _, newer := b.pending[k]; !newer {
			b.pending[k] = e
		}
	}
	n := len(b.sent)
	b.mu.Unlock()
	if n > 0 {
		b.logger.Debug("pod statuses sent again after a reconnect", "pods", n)
		b.poke()
	}
}

// noteSent records entries as published, forgetting gone pods' statuses
// when they have piled up. b.mu is held.
func (b *statusBatch) noteSent(entries []mqtt.PodStatusEntry) {
	for _, e := range entries {
		b.sent[e.Namespace+"/"+e.Name] = e
	}
	if len(b.sent) >= b.pruneAt {
		b.prune()
		b.pruneAt = max(minPruneAt, 2*len(b.sent))
	}
}

// prune forgets the last statuses of pods no longer the agent's. b.mu is
// held.
func (b *statusBatch) prune() {
	if b.alive == nil {
		return
	}
	for k, e := range b.sent {
		if !b.alive(types.UID(e.UID)) {
			delete(b.sent, k)
		}
	}
}

// OnStatus is the pods.StatusFunc.
func (b *statusBatch) OnStatus(pod *corev1.Pod, status corev1.PodStatus) {
	if b.static(pod.UID) {
		return
	}
	b.mu.Lock()
	b.pending[pod.Namespace+"/"+pod.Name] = mqtt.PodStatusEntry{Namespace: pod.Namespace, Name: pod.Name,
		UID: string(pod.UID), Status: *status.DeepCopy()}
	b.mu.Unlock()
	b.logger.Debug("pod status", "pod", pod.Namespace+"/"+pod.Name, "phase", status.Phase, "ready", podReady(status))
	b.poke()
}

// OnFinished is the pods.Config.OnFinished: the pod's last status (or,
// when none was reported, the status of its desired copy) goes out once
// more, marked Finished, so the server deletes the pod.
func (b *statusBatch) OnFinished(pod *corev1.Pod) {
	if b.static(pod.UID) {
		return
	}
	k := pod.Namespace + "/" + pod.Name
	b.mu.Lock()
	e, ok := b.pending[k]
	if !ok || e.UID != string(pod.UID) {
		e, ok = b.sent[k]
	}
	if !ok || e.UID != string(pod.UID) {
		e = mqtt.PodStatusEntry{Namespace: pod.Namespace, Name: pod.Name, UID: string(pod.UID), Status: *pod.Status.DeepCopy()}
		if e.Status.Phase == "" {
			e.Status.Phase = corev1.PodPending
		}
	}
	e.Finished = true
	b.pending[k] = e
	b.mu.Unlock()
	b.logger.Debug("pod finished", "pod", k)
	b.poke()
}

// podReady reads the pod's Ready condition.
func podReady(status corev1.PodStatus) bool {
	for _, c := range status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func (b *statusBatch) poke() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// setPublisher starts publishing through p (once connected).
func (b *statusBatch) setPublisher(p Publisher) {
	b.mu.Lock()
	b.pub = p
	b.mu.Unlock()
	b.poke()
}

// run publishes until ctx ends: a short wait after the first change lets
// the changes of a moment go out as one message; a failure retries later.
func (b *statusBatch) run(ctx context.Context) {
	retry := time.NewTicker(2 * time.Second)
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.kick:
		case <-retry.C:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(b.delay):
		}
		b.flush(ctx)
	}
}

func (b *statusBatch) flush(ctx context.Context) {
	for {
		b.mu.Lock()
		pub, entries := b.pub, b.take()
		b.mu.Unlock()
		if pub == nil || len(entries) == 0 {
			return
		}
		if err := b.publish(ctx, pub, entries); err != nil {
			b.logger.Warn("publish pod status", "node", b.node, "pods", len(entries), "err", err)
			b.requeue(entries)
			return
		}
		b.mu.Lock()
		b.noteSent(entries)
		b.mu.Unlock()
	}
}

// take returns up to one batch of pending entries, in a stable order.
func (b *statusBatch) take() []mqtt.PodStatusEntry {
	if b.pub == nil {
		return nil
	}
	keys := make([]string, 0, len(b.pending))
	for k := range b.pending {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > mqtt.MaxPodStatusBatch {
		keys = keys[:mqtt.MaxPodStatusBatch]
	}
	out := make([]mqtt.PodStatusEntry, 0, len(keys))
	for _, k := range keys {
		out = append(out, b.pending[k])
		delete(b.pending, k)
	}
	return out
}

// requeue puts back entries no newer status replaced.
func (b *statusBatch) requeue(entries []mqtt.PodStatusEntry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range entries {
		k := e.Namespace + "/" + e.Name
		if _, newer := b.pending[k]; !newer {
			b.pending[k] = e
		}
	}
}

func (b *statusBatch) publish(ctx context.Context, pub Publisher, entries []mqtt.PodStatusEntry) error {
	payload, err := (&mqtt.PodStatusReport{Node: b.node, Pods: entries}).Encode()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return pub.Publish(ctx, mqtt.PodStatusTopic(b.node), 1, payload)
}

// heartbeats collects the node's figures every interval and publishes them
// on the status topic (QoS 0) until ctx ends. A heartbeat that finds no
// connection is dropped (the next one is complete too) and the next try
// comes after a second, so a node that just connected is seen at once.
// Each watch sees every collection (the node's Ready events); usage, when
// not nil, gives the resource usage each heartbeat carries.
func heartbeats(ctx context.Context, pub Publisher, cfg nodeinfo.Config, interval time.Duration, logger *slog.Logger, usage func(context.Context) *mqtt.Usage, watch ...func(*nodeinfo.Node)) {
	var seq uint64
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		seq++
		next := interval
		if err := heartbeat(ctx, pub, cfg, seq, interval, usage, watch); err != nil && ctx.Err() == nil {
			level := slog.LevelWarn
			if errors.Is(err, client.ErrNotConnected) {
				level, next = slog.LevelDebug, min(interval, time.Second)
			}
			logger.Log(ctx, level, "heartbeat", "node", cfg.NodeName, "seq", seq, "err", err)
		}
		timer.Reset(next)
	}
}

func heartbeat(ctx context.Context, pub Publisher, cfg nodeinfo.Config, seq uint64, interval time.Duration, usage func(context.Context) *mqtt.Usage, watch []func(*nodeinfo.Node)) error {
	n, err := nodeinfo.Collect(ctx, cfg)
	if err != nil {
		return err
	}
	for _, w := range watch {
		w(n)
	}
	h := n.Heartbeat(seq, interval)
	if usage != nil {
		h.Usage = usage(ctx)
	}
	payload, err := h.Encode()
	if err != nil && h.Usage != nil {
		h.Usage = nil // the node's figures go out anyway
		payload, err = h.Encode()
	}
	if err != nil {
		return err
	}
	return pub.Publish(ctx, mqtt.StatusTopic(cfg.NodeName), 0, payload)
}
