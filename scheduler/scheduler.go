package scheduler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/clock"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
)

// Config configures a Scheduler. Store and Binder are required; the zero
// value of every other field gets a default.
type Config struct {
	// Store is where the scheduler lists and watches Nodes and Pods, unless
	// Cache is set.
	Store datastore.Store
	// Cache, when set, is the process's shared informer cache: the
	// scheduler reads Nodes and Pods from it instead of following them
	// itself, through a View that goes when the scheduler stops.
	Cache *informer.Cache
	// Binder writes bindings, pod conditions and events.
	Binder Binder
	// Preemptor, when set, lets a pod that fits nowhere evict pods of
	// lower priority (preemption.go); nil: no preemption.
	Preemptor Preemptor
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Clock drives the queue's back-off; defaults to the wall clock.
	Clock clock.Clock
	// ImagePlatforms, if set, is asked about images the nodes'
	// bramble.io/image-platforms annotations say nothing about. If it is
	// a PendingImagePlatforms (a registry lookup), a pod waits, retried
	// every 250 ms and for at most 15 s, while its images are looked up.
	ImagePlatforms ImagePlatforms
	// TopologyLabels are the node labels pods of one group are spread
	// across, besides nodes. Default: topology.kubernetes.io/zone.
	TopologyLabels []string
	// PercentageOfNodesToScore: 0 adapts to the cluster size as
	// kube-scheduler does (50% less 1% per 125 nodes, at least 5%, at least
	// 100 nodes); 100 looks at every node.
	PercentageOfNodesToScore int
	// BindWorkers is how many bindings are written at once. Default 128:
	// each waits for a group commit, and more in flight fill each commit.
	BindWorkers int
	// EventWorkers is how many Events (Scheduled, FailedScheduling) are
	// written at once, apart from the bindings. Default 8.
	EventWorkers int
	// InitialBackoff and MaxBackoff bound a failed pod's wait before its
	// next attempt. Defaults 1 s and 60 s.
	InitialBackoff, MaxBackoff time.Duration
	// UnschedulableFlush is the longest an unschedulable pod waits for a
	// cluster change before it is tried again anyway. Default 5 min.
	UnschedulableFlush time.Duration
}

func (c *Config) setDefaults() error {
	switch {
	case c.Store == nil && c.Cache == nil:
		return errors.New("scheduler config: Store is required (or Cache)")
	case c.Binder == nil:
		return errors.New("scheduler config: Binder is required")
	case c.PercentageOfNodesToScore < 0 || c.PercentageOfNodesToScore > 100:
		return fmt.Errorf("scheduler config: PercentageOfNodesToScore is %d, want 0 (adaptive) to 100", c.PercentageOfNodesToScore)
	case c.BindWorkers < 0:
		return fmt.Errorf("scheduler config: BindWorkers is %d, want 0 (default 128) or more", c.BindWorkers)
	case c.EventWorkers < 0:
		return fmt.Errorf("scheduler config: EventWorkers is %d, want 0 (default 8) or more", c.EventWorkers)
	case c.InitialBackoff < 0 || c.MaxBackoff < 0 || c.UnschedulableFlush < 0:
		return errors.New("scheduler config: InitialBackoff, MaxBackoff and UnschedulableFlush must not be negative")
	}
	for i, l := range c.TopologyLabels {
		if l == "" {
			return fmt.Errorf("scheduler config: TopologyLabels[%d] is empty", i)
		}
	}
	c.Logger = cmp.Or(c.Logger, slog.Default())
	c.Clock = cmp.Or[clock.Clock](c.Clock, clock.Real{})
	if c.TopologyLabels == nil {
		c.TopologyLabels = []string{corev1.LabelTopologyZone}
	}
	c.BindWorkers = cmp.Or(c.BindWorkers, 128)
	c.EventWorkers = cmp.Or(c.EventWorkers, 8)
	c.InitialBackoff = cmp.Or(c.InitialBackoff, time.Second)
	c.MaxBackoff = cmp.Or(c.MaxBackoff, 60*time.Second)
	c.UnschedulableFlush = cmp.Or(c.UnschedulableFlush, 5*time.Minute)
	return nil
}

// Scheduler assigns unbound pods to nodes. Start it once; Stop ends it.
type Scheduler struct {
	cfg     Config
	log     *slog.Logger
	cache   *cache
	queue   *queue
	algo    *algorithm
	snap    *snapshot // owned by the scheduling loop
	room    *roomKeeper
	work    chan func(context.Context)
	events  *eventQueue
	nodes   *reflector // without a Cache
	pods    *reflector
	view    *informer.View // with a Cache
	nodeInf *informer.Informer
	vols    *volumeSource // with a Cache; nil: claims are not looked at

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New checks cfg and builds a Scheduler; nothing runs until Start.
func New(cfg Config) (*Scheduler, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	s := &Scheduler{cfg: cfg, log: cfg.Logger,
		cache:  newCache(cfg.TopologyLabels),
		queue:  newQueue(cfg.Clock, cfg.InitialBackoff, cfg.MaxBackoff, cfg.UnschedulableFlush),
		algo:   newAlgorithm(cfg.PercentageOfNodesToScore, cfg.ImagePlatforms),
		snap:   newSnapshot(cfg.TopologyLabels),
		room:   newRoomKeeper(cfg),
		work:   make(chan func(context.Context), 4*cfg.BindWorkers),
		events: newEventQueue(maxPendingEvents),
	}
	if cfg.Cache != nil {
		s.view = cfg.Cache.View()
		s.nodeInf = s.view.Informer(nodesResource)
		s.nodeInf.AddHandler(cacheHandler(nodeHandler{s}))
		s.view.Informer(podsResource).AddHandler(cacheHandler(podHandler{s}))
		s.vols = newVolumeSource(s.view, s.queue.moveAll)
		return s, nil
	}
	s.nodes = newReflector(cfg.Store, nodesResource, s.log, nodeHandler{s})
	s.pods = newReflector(cfg.Store, podsResource, s.log, podHandler{s})
	return s, nil
}

// Start lists Nodes and Pods (returning an error if it cannot), then runs
// the watches, the scheduling loop and the bind workers until Stop.
func (s *Scheduler) Start(ctx context.Context) error {
	if s.cancel != nil {
		return errors.New("scheduler: already started")
	}
	nodes, err := s.startSources(ctx)
	if err != nil {
		return fmt.Errorf("start scheduler: %w", err)
	}
	ctx, s.cancel = context.WithCancel(ctx)
	if s.view == nil {
		s.spawn(func() { s.nodes.run(ctx) })
		s.spawn(func() { s.pods.run(ctx) })
	}
	s.spawn(func() { s.loop(ctx) })
	s.spawn(func() { s.keepRoom(ctx) })
	s.startWorkers(ctx)
	s.log.Info("scheduler started", "nodes", nodes, "workers", s.cfg.BindWorkers)
	return nil
}

// startWorkers runs the bind workers and the event workers until ctx ends.
func (s *Scheduler) startWorkers(ctx context.Context) {
	for range s.cfg.BindWorkers {
		s.spawn(func() { s.worker(ctx) })
	}
	for range s.cfg.EventWorkers {
		s.spawn(func() { s.eventWorker(ctx) })
	}
}

func (s *Scheduler) spawn(fn func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn()
	}()
}

// Stop ends every goroutine Start began and waits for them. Bindings in
// flight are abandoned (their context is cancelled).
func (s *Scheduler) Stop() {
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
	if s.view != nil {
		s.view.Stop()
	}
}

// startSources loads the Nodes and Pods: from the shared cache (waiting
// for it to sync, then replaying it to the handlers), or by listing them.
// It returns the number of nodes known.
func (s *Scheduler) startSources(ctx context.Context) (int, error) {
	if s.view != nil {
		if !s.view.WaitForSync(ctx) {
			return 0, ctx.Err()
		}
		s.view.Start(ctx)
		return s.nodeInf.Len(), nil
	}
	if err := s.nodes.list(ctx); err != nil {
		return 0, err
	}
	if err := s.pods.list(ctx); err != nil {
		return 0, err
	}
	return s.nodes.count(), nil
}
