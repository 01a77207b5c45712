// Package events is the agent's event recorder: what the kubelet reports
// as Events (Pulling, Created, BackOff, Unhealthy, Rebooted...) recorded by
// the pod workers and the node's checks, correlated as the kubelet's
// event correlator does, and sent to the server in batches on the node's
// events topic (docs/EVENTS.md):
//
//   - identical events (same object, field path, type, reason, message)
//     make one series whose count rises; only a series' latest state is
//     sent, with its whole count, so a lost or repeated message is harmless;
//   - more than SimilarLimit different messages of one object, type and
//     reason within SimilarWindow are combined into one series;
//   - each object has a token bucket (Burst, one token per Refill): a
//     series waits for its object's next token instead of being sent;
//   - while the node cannot send, at most MaxPending series wait; past that
//     new ones are dropped and the next report says how many.
package events

import (
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/clock"
)

// Config tunes a Recorder; zero values take the defaults (the kubelet's
// where it has one).
type Config struct {
	Logger *slog.Logger
	Clock  clock.Clock
	// FlushDelay: a batch goes out this long after its first event (1 s).
	FlushDelay time.Duration
	// Burst and Refill are each object's token bucket (25, one per 5 min).
	Burst  int
	Refill time.Duration
	// SimilarLimit and SimilarWindow (10 in 10 min) start combining.
	SimilarLimit  int
	SimilarWindow time.Duration
	// MaxPending bounds the series waiting to be sent (1,024); MaxSeries
	// the series remembered for aggregation (4,096; the oldest go first).
	MaxPending int
	MaxSeries  int
}

func (c *Config) setDefaults() {
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	defInt := func(n *int, v int) {
		if *n <= 0 {
			*n = v
		}
	}
	def(&c.FlushDelay, time.Second)
	def(&c.Refill, 5*time.Minute)
	def(&c.SimilarWindow, 10*time.Minute)
	defInt(&c.Burst, 25)
	defInt(&c.SimilarLimit, 10)
	defInt(&c.MaxPending, 1024)
	defInt(&c.MaxSeries, 4096)
}

// Recorder correlates and batches one node's events. Recording never
// blocks on the network.
type Recorder struct {
	node string
	cfg  Config
	kick chan struct{}

	mu      sync.Mutex
	series  map[seriesKey]*series
	similar map[similarKey]*similarState
	buckets map[string]*bucket // object UID (or Node name) -> tokens
	pending []*series          // series changed since last sent, oldest first
	dropped uint64
	stats   Stats
}

// Stats counts what a Recorder did since New.
type Stats struct {
	Recorded  uint64 // events recorded
	Sent      uint64 // series states sent
	Reports   uint64 // messages published
	Bytes     uint64 // payload bytes published
	Dropped   uint64 // series dropped while the buffer was full
	Throttled uint64 // flushes that left a series waiting for its object's token
}

// New makes the recorder of node.
func New(node string, cfg Config) *Recorder {
	cfg.setDefaults()
	return &Recorder{node: node, cfg: cfg, kick: make(chan struct{}, 1),
		series: map[seriesKey]*series{}, similar: map[similarKey]*similarState{}, buckets: map[string]*bucket{}}
}

// Stats returns the counters.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

func (r *Recorder) poke() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}
