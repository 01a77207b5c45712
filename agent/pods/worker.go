package pods

import (
	"context"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/network/sandbox"
)

// worker runs one pod. update and delete are called by the Manager; every
// other field belongs to the goroutine in run.
type worker struct {
	m       *Manager
	uid     types.UID
	log     *slog.Logger
	started bool // guarded by Manager.mu

	mu       sync.Mutex
	pod      *corev1.Pod
	deleting bool
	evictMsg string // an eviction asked for (evict.go)
	ended    bool   // the agent failed the pod (deadline.go)
	wake     chan struct{}

	ctrs         map[string]*ctrState
	vols         *volumes
	initDone     bool
	initFail     bool
	failed       *failure // the agent ended the pod (deadline.go)
	reclaimed    bool     // an evicted pod's containers and volumes are gone
	frozen       bool     // ended before an agent restart: status left as is
	podCgroup    bool     // the pod's cgroup is made (podcgroup.go)
	podCgroupErr error    // why it could not be
	volErr       error
	sb           *sandbox.Sandbox // the pod's network, once set up
	netErr       error            // why it is not, meanwhile
	netNext      time.Time        // when a failed setup is tried again
	netBackoff   time.Duration
	owned        map[string]bool // volumes given to fsGroup (fsgroup.go)
	startTime    time.Time
	last         *corev1.PodStatus
}

func newWorker(m *Manager, pod *corev1.Pod) *worker {
	w := &worker{
		m: m, uid: pod.UID, pod: pod, deleting: pod.DeletionTimestamp != nil,
		log:  m.log.With("pod", pod.Namespace+"/"+pod.Name),
		wake: make(chan struct{}, 1), ctrs: map[string]*ctrState{},
		vols: newVolumes(m.cfg.DataDir, pod.UID, m.lookup),
	}
	w.vols.log, w.vols.nodeIP, w.vols.claims, w.vols.tokens = w.log, m.cfg.NodeIP, m.cfg.Claims, m.cfg.Tokens
	w.resumeFailure(pod)
	return w
}

func (w *worker) update(pod *corev1.Pod) {
	w.mu.Lock()
	w.pod = pod
	if pod.DeletionTimestamp != nil {
		w.deleting = true
	}
	w.mu.Unlock()
	w.poke()
}

func (w *worker) delete() {
	w.mu.Lock()
	w.deleting = true
	w.mu.Unlock()
	w.poke()
}

func (w *worker) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *worker) snapshot() (*corev1.Pod, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pod, w.deleting
}

// run adopts the pod's existing containers, then syncs until the pod is
// deleted (stopping and removing everything) or ctx ends (leaving the
// containers running).
func (w *worker) run(ctx context.Context) {
	pod, deleting := w.snapshot()
	if !deleting {
		w.adopt(ctx, pod)
	}
	t := time.NewTicker(w.m.cfg.SyncPeriod)
	defer t.Stop()
	for {
		pod, deleting = w.snapshot()
		if deleting {
			w.terminate(ctx, pod)
			return
		}
		w.sync(ctx, pod)
		w.report(pod)
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-t.C:
		}
	}
}

// report computes the pod's status and hands it on when it changed.
func (w *worker) report(pod *corev1.Pod) {
	if w.frozen {
		return
	}
	st := w.status(pod)
	if w.last != nil && equality.Semantic.DeepEqual(*w.last, st) {
		return
	}
	w.last = &st
	meta := &corev1.Pod{}
	meta.Namespace, meta.Name, meta.UID = pod.Namespace, pod.Name, pod.UID
	w.m.onStatus(meta, *st.DeepCopy())
}
