// Package daemonset runs the DaemonSet controller: one pod per node that
// matches a DaemonSet's pod template (node selector, required node
// affinity, tolerated taints), bound directly to that node by setting
// spec.nodeName at create, and rolled to a new template node by node,
// never more than maxUnavailable nodes at a time.
package daemonset

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/history"
)

// Component is the name the controller's events report.
const Component = "daemonset-controller"

var (
	dsResource   = controllers.MustResource("apps", "daemonsets")
	podResource  = controllers.MustResource("", "pods")
	nodeResource = controllers.MustResource("", "nodes")
)

// expectationTimeout is how long a create or delete may stay unseen in
// the cache before the controller stops waiting for it.
const expectationTimeout = 2 * time.Minute

// Controller keeps every DaemonSet's pods in line with the nodes.
type Controller struct {
	// FailedPodBackoff is the first delay before a failed daemon pod on a
	// node is replaced again; it doubles per failure on that node up to
	// FailedPodBackoffMax. Set them before Run.
	FailedPodBackoff, FailedPodBackoffMax time.Duration

	client  controllers.Client
	log     *slog.Logger
	now     func() time.Time
	cache   *controllers.Cache
	dsInf   *controllers.Informer
	podInf  *controllers.Informer
	nodeInf *controllers.Informer
	queue   *controllers.Queue
	rec     *controllers.Recorder
	exp     *controllers.Expectations
	backoff *failureBackoff
	history *history.Store
}

// New makes the controller and registers its informers and handlers with
// d.Cache; nothing runs until Run.
func New(d controllers.Deps) *Controller {
	log := d.Logger("daemonset")
	c := &Controller{
		FailedPodBackoff: time.Second, FailedPodBackoffMax: 15 * time.Minute,
		client: d.Client, log: log, now: d.Clock(), cache: d.Cache,
		dsInf: d.Cache.Informer(dsResource), podInf: d.Cache.Informer(podResource),
		nodeInf: d.Cache.Informer(nodeResource),
		queue:   controllers.NewQueue(10*time.Millisecond, 5*time.Minute),
		rec:     controllers.NewRecorder(d.Client, Component, log),
		exp:     controllers.NewExpectations(expectationTimeout, d.Clock()),
		backoff: newFailureBackoff(),
		history: history.NewStore(d.Client, d.Cache),
	}
	c.dsInf.AddHandler(controllers.EnqueueHandler(c.queue))
	c.podInf.AddHandler(controllers.ChangeHandler(c.podChanged))
	c.history.Informer().AddHandler(controllers.Handler{
		OnAdd:    c.revisionChanged,
		OnUpdate: func(_, cur api.Object) { c.revisionChanged(cur) },
		OnDelete: c.revisionChanged,
	})
	c.nodeInf.AddHandler(controllers.Handler{
		OnAdd:    func(api.Object) { c.enqueueAll() },
		OnUpdate: c.nodeUpdated,
		OnDelete: func(api.Object) { c.enqueueAll() },
	})
	return c
}

// Run waits for the cache, then syncs DaemonSets with workers workers
// until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.rec, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

// ownerKey is the key of the DaemonSet controlling pod, if any.
func ownerKey(pod api.Object) (string, bool) {
	return controllers.ControllerKey(pod, "apps/v1", "DaemonSet")
}

func (c *Controller) podChanged(old, cur api.Object, deleted bool) {
	controllers.OwnerChanged(c.queue, c.exp, "apps/v1", "DaemonSet", old, cur, deleted)
}

// nodeUpdated requeues every DaemonSet when a node changes in a way that
// can change placement; status heartbeats alone do not.
func (c *Controller) nodeUpdated(old, cur api.Object) {
	o, n := old.(*corev1.Node), cur.(*corev1.Node)
	if maps.Equal(o.Labels, n.Labels) && o.Spec.Unschedulable == n.Spec.Unschedulable &&
		slices.EqualFunc(o.Spec.Taints, n.Spec.Taints, func(a, b corev1.Taint) bool { return a.MatchTaint(&b) && a.Value == b.Value }) {
		return
	}
	c.enqueueAll()
}

func (c *Controller) enqueueAll() {
	for _, o := range c.dsInf.List("", nil) {
		c.queue.Add(controllers.KeyOf(o))
	}
}
