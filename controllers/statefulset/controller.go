// Package statefulset runs the StatefulSet controller: pods with stable
// names (<set>-0 .. <set>-N-1), each with its own PersistentVolumeClaims
// made from the set's volumeClaimTemplates and a DNS name under the set's
// governing Service, created and removed in ordinal order (OrderedReady)
// or all at once (Parallel), and rolled to new templates highest ordinal
// first down to the partition. Every template the set has had is kept as a
// ControllerRevision, which `kubectl rollout history|undo` read.
package statefulset

import (
	"context"
	"log/slog"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/history"
)

// Component is the name the controller's events report.
const Component = "statefulset-controller"

var (
	setResource   = controllers.MustResource("apps", "statefulsets")
	podResource   = controllers.MustResource("", "pods")
	claimResource = controllers.MustResource("", "persistentvolumeclaims")
	setKind       = appsv1.SchemeGroupVersion.WithKind("StatefulSet")
)

// expectationTimeout is how long a create or delete may stay unseen in
// the cache before the controller stops waiting for it.
const expectationTimeout = 2 * time.Minute

// Controller keeps every StatefulSet's pods, claims and revisions.
type Controller struct {
	client   controllers.Client
	log      *slog.Logger
	now      func() time.Time
	cache    *controllers.Cache
	setInf   *controllers.Informer
	podInf   *controllers.Informer
	claimInf *controllers.Informer
	history  *history.Store
	queue    *controllers.Queue
	rec      *controllers.Recorder
	exp      *controllers.Expectations
}

// New makes the controller and registers its informers and handlers with
// d.Cache; nothing runs until Run.
func New(d controllers.Deps) *Controller {
	log := d.Logger("statefulset")
	c := &Controller{
		client: d.Client, log: log, now: d.Clock(), cache: d.Cache,
		setInf: d.Cache.Informer(setResource), podInf: d.Cache.Informer(podResource),
		claimInf: d.Cache.Informer(claimResource),
		history:  history.NewStore(d.Client, d.Cache),
		queue:    controllers.NewQueue(10*time.Millisecond, 5*time.Minute),
		rec:      controllers.NewRecorder(d.Client, Component, log),
		exp:      controllers.NewExpectations(expectationTimeout, d.Clock()),
	}
	c.setInf.AddHandler(controllers.EnqueueHandler(c.queue))
	c.podInf.AddHandler(controllers.ChangeHandler(c.podChanged))
	c.history.Informer().AddHandler(controllers.Handler{
		OnAdd:    c.enqueueOwner,
		OnUpdate: func(_, cur api.Object) { c.enqueueOwner(cur) },
		OnDelete: c.enqueueOwner,
	})
	return c
}

// Run waits for the cache, then syncs StatefulSets with workers workers
// until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.rec, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

// ownerKey is the key of the StatefulSet controlling obj, if any.
func ownerKey(obj api.Object) (string, bool) {
	return controllers.ControllerKey(obj, "apps/v1", "StatefulSet")
}

func (c *Controller) podChanged(old, cur api.Object, deleted bool) {
	if controllers.OwnerChanged(c.queue, c.exp, "apps/v1", "StatefulSet", old, cur, deleted) || deleted {
		return
	}
	if set, ok := c.namesake(cur); ok {
		c.queue.Add(set) // an orphan the set may adopt
	}
}

// namesake is the key of the set whose pod name pod carries, when no one
// controls the pod and that set exists.
func (c *Controller) namesake(pod api.Object) (string, bool) {
	name := pod.GetName()
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || metav1.GetControllerOfNoCopy(pod) != nil {
		return "", false
	}
	if _, ok := c.setInf.Get(pod.GetNamespace(), name[:i]); !ok {
		return "", false
	}
	return pod.GetNamespace() + "/" + name[:i], true
}

func (c *Controller) enqueueOwner(o api.Object) {
	if key, ok := ownerKey(o); ok {
		c.queue.Add(key)
	}
}
