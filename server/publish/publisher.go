// Package publish sends committed datastore changes over MQTT: every API
// change except Secrets to bramble/v1/watch/..., and to each node, on its
// desired topic, the changes to its view (its pods and the ConfigMaps and
// Secrets they reference), chained by revision so the node notices a gap.
// Nodes acknowledge on their ack topic; a node that reconnects, or stops
// acknowledging, gets what it missed rebuilt from the datastore history,
// or is told to relist. docs/MQTT-DELIVERY.md describes the protocol.
package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
	"github.com/bramble-edge/bramble/mqtt"
)

// Config holds what New needs. Store and Bus are required; zero values of
// the rest get defaults.
type Config struct {
	Store  datastore.Store
	Bus    mqtt.Bus
	Logger *slog.Logger
	// NodeQueue is how many Events may wait for the broker per node before
	// the node is switched to a catch-up built from history (default 256).
	NodeQueue int
	// WatchQueue is how many watch-topic messages may wait for the broker;
	// beyond that they are dropped and counted (default 4096).
	WatchQueue int
	// StallTimeout: a node that has not acknowledged what was published to
	// it for this long gets a catch-up from its acknowledged revision
	// (default 10s; repeated with doubling waits up to 5 minutes).
	StallTimeout time.Duration
	// MaxReplay is the longest history (in revisions) a catch-up reads;
	// a node further behind is told to relist (default 100000).
	MaxReplay int64
	// MaxCatchupBytes caps one catch-up Event; a larger one becomes a
	// RELIST (default 4 MiB).
	MaxCatchupBytes int
	// PublishTimeout bounds one Bus.Publish attempt (default 10s).
	PublishTimeout time.Duration
	// Pods, when set, gives the pods the process has decoded already
	// (CachePods); otherwise the publisher decodes each pod it indexes.
	Pods PodSource
	// MaxViews is how many relists (ViewHandler) are answered at once;
	// more get 429 and retry (default 16).
	MaxViews int
}

func (c *Config) setDefaults() {
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	c.NodeQueue = cmpOr(c.NodeQueue, 256)
	c.WatchQueue = cmpOr(c.WatchQueue, 4096)
	c.StallTimeout = cmpOr(c.StallTimeout, 10*time.Second)
	c.MaxReplay = cmpOr(c.MaxReplay, 100000)
	c.MaxCatchupBytes = cmpOr(c.MaxCatchupBytes, 4<<20)
	c.PublishTimeout = cmpOr(c.PublishTimeout, 10*time.Second)
	c.MaxViews = cmpOr(c.MaxViews, 16)
}

func cmpOr[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Publisher is the server side of the MQTT delivery protocol.
type Publisher struct {
	cfg Config
	log *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// Owned by the dispatcher goroutine (run) once started.
	idx       *index
	nodes     map[string]*nodeState
	start     int64 // revision the index was loaded at: every chain starts here
	processed int64 // revision of the last event dispatched
	gen       uint64
	events    *listwatch.Watch // of the registry, resumed after cut-offs
	back      listwatch.Backoff
	walks     chan walkResult
	views     chan viewReq // relists (view.go)
	watch     *watchSender

	in inbox // acks and hellos from the Bus handler
}

// New returns a Publisher; Start begins publishing.
func New(cfg Config) *Publisher {
	cfg.setDefaults()
	return &Publisher{cfg: cfg, log: cfg.Logger, idx: newIndex(), nodes: map[string]*nodeState{},
		walks: make(chan walkResult), views: make(chan viewReq), in: newInbox()}
}

// Start loads the index at the latest revision, subscribes to the nodes'
// ack topics and starts dispatching every later change. It returns once
// the publisher is running; Stop (or ctx ending) stops it.
func (p *Publisher) Start(ctx context.Context) error {
	if p.cfg.Store == nil || p.cfg.Bus == nil {
		return errors.New("start publisher: Store and Bus are required")
	}
	rev, err := p.idx.load(ctx, p.cfg.Store)
	if err != nil {
		return fmt.Errorf("start publisher: load index: %w", err)
	}
	p.start, p.processed = rev, rev
	p.idx.source = p.cfg.Pods // after the load: the cache may not be there yet
	p.ctx, p.cancel = context.WithCancel(ctx)
	p.events = listwatch.NewWatch(p.cfg.Store, registryPrefix, rev, listwatch.WatchConfig{Logger: p.log})
	if err := p.events.Open(p.ctx); err != nil {
		p.cancel()
		return fmt.Errorf("start publisher: watch from %d: %w", rev, err)
	}
	if err := p.cfg.Bus.Subscribe(mqtt.Prefix+"/nodes/+/ack", 1, p.onAck); err != nil {
		p.cancel()
		return fmt.Errorf("start publisher: subscribe to acks: %w", err)
	}
	p.watch = newWatchSender(p)
	p.wg.Add(2)
	go p.watch.run()
	go p.run()
	p.log.Info("MQTT publisher started", "rev", rev)
	return nil
}

// nextEvents is the registry watch's channel, resumed after a cut-off and
// opened again after a reload when the watch fell behind compaction;
// false once the publisher stops (or the store closed).
func (p *Publisher) nextEvents() (<-chan []datastore.Event, bool) {
	for {
		events, err := p.events.Chan(p.ctx)
		if !errors.Is(err, datastore.ErrCompacted) {
			return events, err == nil
		}
		if p.reload() != nil && !p.back.Wait(p.ctx) {
			return nil, false
		}
	}
}

// Stop stops dispatching and publishing and waits for every goroutine.
func (p *Publisher) Stop() {
	if p.cancel == nil {
		return
	}
	p.cancel()
	p.wg.Wait()
}

// Acked returns the last revision node acknowledged (or announced in a
// hello), and whether the node was heard from since Start.
func (p *Publisher) Acked(node string) (int64, bool) { return p.in.acked(node) }

// run is the dispatcher: the only goroutine that touches the index and
// the node states. It runs the watch-and-resume part of listwatch itself
// (a Follower's goroutine could not share the index with acks and
// catch-ups); a compacted revision rebuilds the index and relists every
// node (reload).
func (p *Publisher) run() {
	defer p.wg.Done()
	defer p.events.Close()
	tick := time.NewTicker(max(p.cfg.StallTimeout/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		events, ok := p.nextEvents()
		if !ok {
			return // stopped, or the store closed
		}
		select {
		case <-p.ctx.Done():
			return
		case batch, ok := <-events:
			p.events.Recv(batch, ok)
			for i := range batch {
				p.dispatch(&batch[i])
			}
		case <-p.in.wake:
			p.takeHellos()
		case res := <-p.walks:
			p.finishCatchup(res)
		case req := <-p.views:
			p.startView(req)
		case now := <-tick.C:
			p.checkStalls(now)
		}
	}
}
