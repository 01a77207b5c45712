// Package nodestatus turns what agents say about themselves over MQTT into
// Node and Pod status in the datastore, without wearing out an SD card:
// heartbeats live in memory, and only what a user would see change is
// written (docs/NODE-STATUS.md). It also decides readiness by a
// server-side lease: a node whose heartbeats stop for longer than the grace
// period becomes Ready=Unknown, written once.
package nodestatus

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
	"github.com/bramble-edge/bramble/mqtt"
)

// Writer writes objects through the API's admission path; server.API's
// in-process methods satisfy it. Errors are API status errors
// (k8s.io/apimachinery/pkg/api/errors: IsNotFound, IsConflict,
// IsAlreadyExists). UpdateStatus and Update never modify the object they
// are given (it may share what it points to with a cached object).
type Writer interface {
	Create(ctx context.Context, obj api.Object) (api.Object, error)
	UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error)
	// Update writes metadata (the image platforms annotation).
	Update(ctx context.Context, obj api.Object) (api.Object, error)
	// Delete deletes a pod its node finished (finish.go).
	Delete(ctx context.Context, res *api.Resource, namespace, name string, opts controllers.DeleteOptions) error
}

// NewStatusWriter is a Writer that can take over an object made for one
// status write, sparing the copy UpdateStatus makes of what it is given.
type NewStatusWriter interface {
	// UpdateStatusNew is UpdateStatus of build's object, which shares
	// nothing with any other; build is called again for a fresh one when
	// the write is retried.
	UpdateStatusNew(ctx context.Context, build func() api.Object) (api.Object, error)
}

// Config wires a Monitor. Bus, Store and Writer are required; zero values
// of the rest get defaults.
type Config struct {
	// Bus carries the agents' messages. The Monitor subscribes on Start and
	// ignores what arrives after Stop; it never closes the Bus.
	Bus mqtt.Bus
	// Store is read (Nodes and Pods); every write goes through Writer.
	Store  datastore.Store
	Writer Writer
	// Pods, when set, is a possibly stale read of pods (the shared cache),
	// used only where staleness cannot skip a write (podcache.go).
	Pods   PodReader
	Logger *slog.Logger
	// GracePeriod (--node-monitor-grace-period) is how long a node may stay
	// silent before it is Ready=Unknown. Zero adapts it to the number of
	// nodes (AdaptiveGracePeriod). Either way a node is given at least three
	// of its own heartbeat intervals.
	GracePeriod time.Duration
	// OfflineConfirm: after the broker publishes a node's Last Will
	// ("offline"), the node is Ready=Unknown when no heartbeat comes within
	// this long (default 15s; never longer than the grace period).
	OfflineConfirm time.Duration
	// ResourceChange is the fraction by which a capacity or allocatable
	// figure must move before it is written (default 0.05).
	ResourceChange float64
	// WritesPerSecond caps datastore writes (default 500, a burst of 50;
	// past it, the writes of one 100 ms tick share one commit, so at most
	// 10 commits a second at any rate). Above 10 a second the writer takes
	// only what the datastore's other writers leave of it, never less than
	// 50 a second (share.go). Workers is how many run at once (default:
	// enough for the writes of one limiter tick to go together, at least 2).
	WritesPerSecond float64
	Workers         int
	// CheckInterval is how often leases are checked (default: an eighth of
	// the grace period, between 1s and 5s).
	CheckInterval time.Duration
	// Now is the clock (tests).
	Now func() time.Time
}

// defaultWritesPerSecond: 50 a second held 1,000 pods' Ready reports on
// 100 nodes for 20 s after their binding, and the ReplicaSet and
// Deployment syncs and small commits of all that time (BENCHMARKS.md,
// issue 12's third follow-up); 500 a second is a tenth of what the
// datastore acknowledges with a 10 ms (SD card) commit, at the same 10
// commits a second.
const defaultWritesPerSecond = 500

func (c *Config) setDefaults() error {
	if c.Bus == nil || c.Store == nil || c.Writer == nil {
		return errors.New("node status: Bus, Store and Writer are required")
	}
	if c.GracePeriod < 0 {
		return errors.New("node status: GracePeriod (--node-monitor-grace-period) must not be negative")
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.OfflineConfirm <= 0 {
		c.OfflineConfirm = 15 * time.Second
	}
	if c.ResourceChange <= 0 {
		c.ResourceChange = 0.05
	}
	if c.WritesPerSecond <= 0 {
		c.WritesPerSecond = defaultWritesPerSecond
	}
	if c.Workers <= 0 {
		c.Workers = max(2, newLimiter(c.WritesPerSecond).perTick())
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

// Monitor keeps the latest heartbeat of every node in memory and writes
// Node and Pod status when it changes in a way a user would see.
type Monitor struct {
	cfg     Config
	log     *slog.Logger
	queue   *controllers.Queue // nodeKey, podQueueKey; adds pile up into one sync
	limiter *limiter
	warn    warnGate

	mu    sync.Mutex
	nodes map[string]*nodeState
	tombs map[string]time.Time // deleted Nodes: heartbeats ignored until then
	pods  map[podKey]*podState

	counters counters
	follow   *listwatch.Follower // of the Node objects
	stopped  atomic.Bool
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// New checks cfg; Start begins the work.
func New(cfg Config) (*Monitor, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	m := &Monitor{cfg: cfg, log: cfg.Logger.With("component", "nodestatus"),
		queue: controllers.NewQueue(retryMin, retryMax), limiter: newLimiter(cfg.WritesPerSecond),
		nodes: map[string]*nodeState{}, tombs: map[string]time.Time{}, pods: map[podKey]*podState{}}
	if m.limiter.tick != 0 {
		m.limiter.share = newWriteShare(cfg.Store, m.ownWrites, cfg.WritesPerSecond)
	}
	return m, nil
}

// ownWrites is how many datastore writes the Monitor made.
func (m *Monitor) ownWrites() uint64 {
	return m.counters.nodeWrites.Load() + m.counters.podWrites.Load()
}

// Start loads the Nodes the datastore holds (each gets a fresh lease, as
// after any server restart), subscribes to the agents' status, pod status
// and presence topics, and starts the writers, the lease check and the
// watch on Nodes.
func (m *Monitor) Start(ctx context.Context) error {
	m.follow = listwatch.New(m.cfg.Store, nodesResource.Prefix(""), nodesHandler{m}, listwatch.Config{Logger: m.log})
	if err := m.follow.Replace(ctx); err != nil {
		return err
	}
	subs := []struct {
		filter  string
		qos     byte
		handler func(string, []byte)
	}{
		{mqtt.StatusTopic("+"), 0, m.onStatus},
		{mqtt.PodStatusTopic("+"), 1, m.onPodStatus},
		{mqtt.PresenceTopic("+"), 1, m.onPresence},
	}
	for _, s := range subs {
		if err := m.cfg.Bus.Subscribe(s.filter, s.qos, s.handler); err != nil {
			return err
		}
	}
	ctx, m.cancel = context.WithCancel(ctx)
	m.wg.Add(3)
	go func() { defer m.wg.Done(); controllers.RunWorkers(ctx, m.queue, m.cfg.Workers, m.log, m.syncLogged) }()
	go func() { defer m.wg.Done(); m.watchLeases(ctx) }()
	go func() { defer m.wg.Done(); m.follow.Follow(ctx) }()
	return nil
}

// Stop ends the writers and the lease check and waits for them. Messages
// that arrive later are ignored.
func (m *Monitor) Stop() {
	m.stopped.Store(true)
	if m.cancel != nil {
		m.cancel()
	}
	m.queue.ShutDown()
	m.wg.Wait()
}

// Stats counts what the Monitor did since New.
type Stats struct {
	Heartbeats, PodReports, Rejected uint64 // messages accepted and refused
	NodeWrites, PodWrites            uint64 // datastore writes made
	Nodes                            int    // nodes tracked
}

type counters struct {
	heartbeats, podReports, rejected, nodeWrites, podWrites atomic.Uint64
}

// Stats returns the counters.
func (m *Monitor) Stats() Stats {
	m.mu.Lock()
	n := len(m.nodes)
	m.mu.Unlock()
	c := &m.counters
	return Stats{Heartbeats: c.heartbeats.Load(), PodReports: c.podReports.Load(), Rejected: c.rejected.Load(),
		NodeWrites: c.nodeWrites.Load(), PodWrites: c.podWrites.Load(), Nodes: n}
}
