// Package manager runs every bramble controller on one shared cache: it
// makes them (each asks the cache for the informers it needs), starts the
// cache, runs each controller's workers, and stops them all together.
package manager

import (
	"context"
	"sync"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/clusterroleaggregation"
	"github.com/bramble-edge/bramble/controllers/cronjob"
	"github.com/bramble-edge/bramble/controllers/daemonset"
	"github.com/bramble-edge/bramble/controllers/deployment"
	"github.com/bramble-edge/bramble/controllers/disruption"
	"github.com/bramble-edge/bramble/controllers/endpoints"
	"github.com/bramble-edge/bramble/controllers/gc"
	"github.com/bramble-edge/bramble/controllers/hpa"
	"github.com/bramble-edge/bramble/controllers/job"
	"github.com/bramble-edge/bramble/controllers/nodeipam"
	"github.com/bramble-edge/bramble/controllers/nodelifecycle"
	"github.com/bramble-edge/bramble/controllers/podgc"
	"github.com/bramble-edge/bramble/controllers/replicaset"
	"github.com/bramble-edge/bramble/controllers/resourcequota"
	"github.com/bramble-edge/bramble/controllers/servicelb"
	"github.com/bramble-edge/bramble/controllers/statefulset"
	"github.com/bramble-edge/bramble/controllers/volume"
)

// runner is one controller as the manager sees it.
type runner interface {
	Run(ctx context.Context, workers int)
}

// Manager is the set of running controllers.
type Manager struct {
	deps    controllers.Deps
	loops   []loop
	cancel  context.CancelFunc
	running sync.WaitGroup
}

type loop struct {
	name    string
	r       runner
	workers int
}

// Config is what controllers need beyond Deps; zero values take defaults.
type Config struct {
	NodeIPAM nodeipam.Config // --cluster-cidr, --node-cidr-mask-size, --network-backend
	// DisableServiceLB (--disable servicelb) leaves LoadBalancer Services
	// to another controller.
	DisableServiceLB bool
	// HPA tunes the HorizontalPodAutoscaler controller (its sync period).
	HPA hpa.Config
	// PodGC tunes the pod garbage collector (--terminated-pod-gc-threshold).
	PodGC podgc.Config
}

// New makes every controller on d.Cache with the default Config.
func New(d controllers.Deps) (*Manager, error) { return NewWithConfig(d, Config{}) }

// NewWithConfig makes every controller on d.Cache. Nothing runs until Start.
func NewWithConfig(d controllers.Deps, cfg Config) (*Manager, error) {
	ipam, err := nodeipam.New(d, cfg.NodeIPAM)
	if err != nil {
		return nil, err
	}
	m := &Manager{deps: d}
	m.loops = []loop{
		{"replicaset", replicaset.New(d), 5},
		{"deployment", deployment.New(d), 5},
		{"daemonset", daemonset.New(d), 2},
		{"statefulset", statefulset.New(d), 2},
		{"job", job.New(d), 5},
		{"cronjob", cronjob.New(d), 2},
		{"node-lifecycle", nodelifecycle.New(d), 2},
		{"node-ipam", ipam, 1},
		{"garbage-collector", gc.New(d), 2},
		{"resourcequota", resourcequota.New(d), 2},
		{"disruption", disruption.New(d), 2},
		{"endpoints", endpoints.New(d), 2},
		{"endpointslice", endpoints.NewSlices(d), 2},
		{"clusterrole-aggregation", clusterroleaggregation.New(d), 1},
		{"persistentvolume", volume.New(d), 2},
		{"horizontal-pod-autoscaler", hpa.New(d, cfg.HPA), 2},
		{"pod-garbage-collector", podgc.New(d, cfg.PodGC), 1},
	}
	if !cfg.DisableServiceLB {
		m.loops = append(m.loops, loop{"servicelb", servicelb.New(d), 1})
	}
	return m, nil
}

// Start starts the cache and every controller; it returns at once.
func (m *Manager) Start(ctx context.Context) {
	ctx, m.cancel = context.WithCancel(ctx)
	m.deps.Cache.Start(ctx)
	for _, l := range m.loops {
		m.running.Add(1)
		go func() {
			defer m.running.Done()
			l.r.Run(ctx, l.workers)
		}()
	}
	m.deps.Log.Info("controllers started", "count", len(m.loops))
}

// Stop ends every controller and waits for their workers and for the
// cache's reflectors.
func (m *Manager) Stop() {
	if m.cancel != nil {
		m.cancel()
	}
	m.running.Wait()
	m.deps.Cache.Stop()
}
