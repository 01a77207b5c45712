// Package nodeevents writes the events agents report over MQTT (on
// bramble/v1/nodes/{node}/events, docs/EVENTS.md) as core/v1 Events: a
// node may report only about itself and the pods bound to it; a series the
// agent aggregated stays one Event whose count and lastTimestamp are
// updated; each node's writes are capped, so a node in trouble cannot
// flood the datastore.
package nodeevents

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/mqtt"
)

// Client reads and writes through the API's admission path; the
// registry's in-process Client has it.
type Client interface {
	Create(ctx context.Context, obj api.Object) (api.Object, error)
	Update(ctx context.Context, obj api.Object) (api.Object, error)
	Get(ctx context.Context, res *api.Resource, namespace, name string) (api.Object, error)
}

// Config wires an Ingest. Bus and Client are required; zero values of the
// rest get defaults.
type Config struct {
	Bus    mqtt.Bus
	Client Client
	// Events, when set, finds the Event an earlier server wrote for a
	// series it does not remember (after a restart or a failover).
	Events EventLister
	Logger *slog.Logger
	// WritesPerSecond and Burst cap each node's Event writes (5/s, 50):
	// past them a report's series are skipped (the next report of a series
	// carries its whole count, so only freshness is lost).
	WritesPerSecond float64
	Burst           int
	// QueueSize bounds the reports waiting to be written (256); past it a
	// report is dropped and counted.
	QueueSize int
	// Now is the clock (tests).
	Now func() time.Time
}

func (c *Config) setDefaults() error {
	if c.Bus == nil || c.Client == nil {
		return errors.New("node events: Bus and Client are required")
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.WritesPerSecond <= 0 {
		c.WritesPerSecond = 5
	}
	if c.Burst <= 0 {
		c.Burst = 50
	}
	if c.QueueSize <= 0 {
		c.QueueSize = 256
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

// Ingest subscribes to every node's events topic and writes what arrives.
type Ingest struct {
	cfg   Config
	log   *slog.Logger
	queue chan nodeReport

	mu     sync.Mutex
	series map[seriesKey]*written
	limits map[string]*limit

	stats   counters
	stopped atomic.Bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

type nodeReport struct {
	node   string
	report *mqtt.EventReport
}

// Stats counts what the Ingest did since New.
type Stats struct {
	Reports, Rejected, Overflow uint64 // reports accepted, refused, dropped (queue full)
	Created, Updated            uint64 // Events written
	Denied, Limited, Failed     uint64 // series refused (wrong node), skipped (rate cap), not written (error)
	AgentDropped                uint64 // events agents said they dropped
}

type counters struct {
	reports, rejected, overflow, created, updated, denied, limited, failed, agentDropped atomic.Uint64
}

// New checks cfg; Start begins the work.
func New(cfg Config) (*Ingest, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	return &Ingest{cfg: cfg, log: cfg.Logger.With("component", "nodeevents"),
		queue: make(chan nodeReport, cfg.QueueSize), series: map[seriesKey]*written{}, limits: map[string]*limit{}}, nil
}

// Start subscribes to the events topics and starts the writer.
func (in *Ingest) Start(ctx context.Context) error {
	if err := in.cfg.Bus.Subscribe(mqtt.EventsTopic("+"), 1, in.onReport); err != nil {
		return err
	}
	ctx, in.cancel = context.WithCancel(ctx)
	in.wg.Add(1)
	go func() { defer in.wg.Done(); in.run(ctx) }()
	return nil
}

// Stop ends the writer and waits for it; later reports are ignored.
func (in *Ingest) Stop() {
	in.stopped.Store(true)
	if in.cancel != nil {
		in.cancel()
	}
	in.wg.Wait()
}

// Stats returns the counters.
func (in *Ingest) Stats() Stats {
	c := &in.stats
	return Stats{Reports: c.reports.Load(), Rejected: c.rejected.Load(), Overflow: c.overflow.Load(),
		Created: c.created.Load(), Updated: c.updated.Load(), Denied: c.denied.Load(),
		Limited: c.limited.Load(), Failed: c.failed.Load(), AgentDropped: c.agentDropped.Load()}
}
