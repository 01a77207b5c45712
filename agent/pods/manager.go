// Package pods is the agent's pod worker: it turns the pods bound to this
// node into containers through runtime.Runtime and reports each pod's
// status. Manager owns one worker goroutine per pod; the worker prepares
// volumes, runs init containers in order, keeps app containers running per
// restartPolicy with exponential back-off, runs probes and computes the
// Kubernetes PodStatus.
package pods

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/clock"
)

// ErrNotFound is what a Lookup returns (wrapped) for a missing object.
var ErrNotFound = errors.New("not found")

// Kinds a Lookup resolves.
const (
	KindConfigMap = "ConfigMap"
	KindSecret    = "Secret"
)

// Lookup resolves a ConfigMap (Data and BinaryData merged) or a Secret by
// namespace and name; a missing object is an error wrapping ErrNotFound.
type Lookup func(ctx context.Context, kind, namespace, name string) (map[string][]byte, error)

// StatusFunc receives a pod's status whenever it changes. The pod carries
// the namespace, name and UID; callers must not modify either argument.
type StatusFunc func(pod *corev1.Pod, status corev1.PodStatus)

// Config configures a Manager; zero values take the defaults.
type Config struct {
	// DataDir is the agent's data directory; pods' volumes live in
	// <DataDir>/agent/pods/<uid>/volumes.
	DataDir string
	// PodLogDir and ContainerLogDir are the kubelet's log roots (defaults
	// /var/log/pods and /var/log/containers; see logfiles.go).
	PodLogDir       string
	ContainerLogDir string
	// NodeName and NodeIP fill spec.nodeName fieldRefs, podIP and hostIP.
	NodeName string
	NodeIP   string
	Logger   *slog.Logger
	Clock    clock.Clock
	// SyncPeriod is how often a worker looks at its containers (1 s).
	SyncPeriod time.Duration
	// Backoff: the first delay after the second crash (10 s), its cap
	// (5 min) and how long a container must run to reset it (10 min).
	BackoffInitial time.Duration
	BackoffMax     time.Duration
	BackoffReset   time.Duration
	// DefaultGrace applies when a pod sets no terminationGracePeriodSeconds.
	DefaultGrace time.Duration
	// Events takes the pods' events (none recorded when nil).
	Events EventRecorder
	// Network gives pods their own network (agent/network/sandbox); nil
	// keeps every pod on the host's.
	Network Network
	// SeccompRoot holds Localhost seccomp profiles (the kubelet's
	// /var/lib/kubelet/seccomp); default <DataDir>/agent/seccomp.
	SeccompRoot string
	// Services lists the Services a pod of namespace ns gets variables
	// for: ns's and default/kubernetes (nil: no service variables).
	Services func(ns string) []*corev1.Service
	// ServicesSynced reports whether Services holds what the server has
	// (nil: always). Until it does, for at most ServicesWait after the
	// manager is made (default 15 s), containers wait with
	// CreateContainerConfigError, as the kubelet's wait for its Service
	// informer, so a pod started early does not miss its variables.
	ServicesSynced func() bool
	ServicesWait   time.Duration
	// Claims finds the volumes bound to pods' claims (nil: pods with
	// persistentVolumeClaim volumes wait with FailedMount).
	Claims ClaimLookup
	// Tokens gives serviceAccountToken projections their tokens (nil:
	// such volumes fail).
	Tokens TokenSource
	// RefuseEphemeral leaves ephemeral containers waiting (the agent's
	// --disable-exec: a debugging container runs what exec would).
	RefuseEphemeral bool
	// OnFinished, when set, is called once a pod whose desired copy has a
	// deletionTimestamp has stopped: every container stopped and removed,
	// its final status handed to the StatusFunc first.
	OnFinished func(pod *corev1.Pod)
}

func (c *Config) setDefaults() error {
	if c.DataDir == "" {
		return fmt.Errorf("pods config: DataDir is empty")
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.PodLogDir == "" {
		c.PodLogDir = DefaultPodLogDir
	}
	if c.ContainerLogDir == "" {
		c.ContainerLogDir = DefaultContainerLogDir
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Events == nil {
		c.Events = noEvents{}
	}
	if c.SeccompRoot == "" {
		c.SeccompRoot = filepath.Join(c.DataDir, "agent", "seccomp")
	}
	setDuration(&c.SyncPeriod, time.Second)
	setDuration(&c.BackoffInitial, 10*time.Second)
	setDuration(&c.BackoffMax, 5*time.Minute)
	setDuration(&c.BackoffReset, 10*time.Minute)
	setDuration(&c.DefaultGrace, 30*time.Second)
	setDuration(&c.ServicesWait, 15*time.Second)
	return nil
}

func setDuration(d *time.Duration, def time.Duration) {
	if *d <= 0 {
		*d = def
	}
}

// Manager runs the pods of one node.
type Manager struct {
	cfg      Config
	rt       runtime.Runtime
	lookup   Lookup
	onStatus StatusFunc
	log      *slog.Logger
	logs     logFiles
	created  time.Time // bounds the wait for ServicesSynced

	mu      sync.Mutex
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	workers map[types.UID]*worker
	synced  bool // orphans were cleaned after a Sync while started
	desired bool // a Sync happened
	netGC   bool // the Network's GC ran
}

// NewManager builds a Manager; onStatus may be nil.
func NewManager(rt runtime.Runtime, lookup Lookup, onStatus StatusFunc, cfg Config) (*Manager, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	if rt == nil || lookup == nil {
		return nil, fmt.Errorf("pods manager: runtime and lookup are required")
	}
	if onStatus == nil {
		onStatus = func(*corev1.Pod, corev1.PodStatus) {}
	}
	return &Manager{cfg: cfg, rt: rt, lookup: lookup, onStatus: onStatus, log: cfg.Logger,
		logs:    logFiles{pods: cfg.PodLogDir, containers: cfg.ContainerLogDir},
		workers: map[types.UID]*worker{}, created: cfg.Clock.Now()}, nil
}

// Start lets the manager run workers; pods given before Start wait for it.
func (m *Manager) Start(ctx context.Context) {
	m.mu.Lock()
	m.ctx, m.cancel = context.WithCancel(ctx)
	want := map[types.UID]bool{}
	for uid := range m.workers {
		want[uid] = true
	}
	desired := m.desired
	m.mu.Unlock()
	if desired {
		m.gcNetworkOnce(want)
	}
	m.mu.Lock()
	for _, w := range m.workers {
		m.startWorker(w)
	}
	clean := m.desired && !m.synced
	m.synced = m.synced || clean
	m.mu.Unlock()
	if clean {
		m.removeOrphans(m.ctx, want)
	}
}

// Stop ends the workers and waits for them. Containers keep running; a
// new Manager adopts them.
func (m *Manager) Stop() {
	m.mu.Lock()
	if m.cancel != nil {
		m.cancel()
	}
	m.mu.Unlock()
	m.wg.Wait()
}

// Runs reports whether the Manager has a worker for the pod with uid: a
// pod it was given and has not finished deleting.
func (m *Manager) Runs(uid types.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.workers[uid]
	return ok
}

// PodName returns the namespace and name of the pod with uid, if the
// Manager runs it.
func (m *Manager) PodName(uid types.UID) (namespace, name string, ok bool) {
	m.mu.Lock()
	w, ok := m.workers[uid]
	m.mu.Unlock()
	if !ok {
		return "", "", false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pod.Namespace, w.pod.Name, true
}

func (m *Manager) startWorker(w *worker) {
	if m.ctx == nil || w.started {
		return
	}
	w.started = true
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		w.run(m.ctx)
		m.mu.Lock()
		if m.workers[w.uid] == w {
			delete(m.workers, w.uid)
		}
		m.mu.Unlock()
	}()
}
