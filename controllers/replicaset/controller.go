// Package replicaset keeps each ReplicaSet's pods at spec.replicas, with
// Kubernetes' semantics: it creates pods from the template in slow-start
// batches, deletes the least useful surplus pods first, adopts orphan pods
// its selector matches and releases owned pods it no longer matches, waits
// for the cache to observe its own writes before acting again
// (expectations), and reports replicas, ready and available counts in
// status.
package replicaset

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Component names the controller in events.
const Component = "replicaset-controller"

// expectationTTL is how long a sync's writes may stay unobserved before
// the controller acts again anyway (a lost watch event must not stall a
// ReplicaSet for ever).
const expectationTTL = 5 * time.Minute

var (
	replicaSets = controllers.MustResource("apps", "replicasets")
	pods        = controllers.MustResource("", "pods")
)

// Controller reconciles ReplicaSets with their pods.
type Controller struct {
	client controllers.Client
	cache  *controllers.Cache
	log    *slog.Logger
	now    func() time.Time
	rsInf  *controllers.Informer
	podInf *controllers.Informer
	queue  *controllers.Queue
	exp    *controllers.Expectations
	events *controllers.Recorder
	burst  int
}

// New asks d.Cache for the ReplicaSet and Pod informers and registers its
// handlers; nothing runs until Run.
func New(d controllers.Deps) *Controller {
	log := d.Logger("replicaset")
	c := &Controller{
		client: d.Client, cache: d.Cache, log: log, now: d.Clock(),
		rsInf: d.Cache.Informer(replicaSets), podInf: d.Cache.Informer(pods),
		queue:  controllers.NewQueue(5*time.Millisecond, 5*time.Minute),
		events: controllers.NewRecorder(d.Client, Component, log),
		burst:  DefaultBurst,
	}
	c.exp = controllers.NewExpectations(expectationTTL, c.now)
	c.rsInf.AddHandler(controllers.Handler{OnAdd: c.enqueue,
		OnUpdate: func(_, cur api.Object) { c.enqueue(cur) }, OnDelete: c.rsDeleted})
	c.podInf.AddHandler(controllers.Handler{OnAdd: c.podAdded, OnUpdate: c.podUpdated, OnDelete: c.podDeleted})
	return c
}

// Run waits for the cache, then syncs ReplicaSets with workers workers
// until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.events, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

func (c *Controller) enqueue(obj api.Object) { c.queue.Add(controllers.KeyOf(obj)) }

// sync brings one ReplicaSet's pods and status in line with its spec.
func (c *Controller) sync(ctx context.Context, key string) error {
	rs, sel, ok := c.lookup(key)
	if !ok {
		return nil
	}
	mayAct := c.exp.Satisfied(key, controllers.CachedPods(c.podInf, rs.Namespace)) && rs.DeletionTimestamp == nil
	owned, err := c.claimPods(ctx, rs, sel, c.candidatePods(rs, sel))
	if err != nil {
		return fmt.Errorf("claim pods of replicaset %s: %w", key, err)
	}
	var manageErr error
	if mayAct {
		manageErr = c.manageReplicas(ctx, rs, owned)
	}
	recheck, err := c.updateStatus(ctx, rs, owned, manageErr)
	if err != nil {
		return fmt.Errorf("update status of replicaset %s: %w", key, err)
	}
	if manageErr != nil {
		return fmt.Errorf("sync replicaset %s: %w", key, manageErr)
	}
	if recheck > 0 {
		c.queue.AddAfter(key, recheck)
	}
	return nil
}

// lookup is the cached ReplicaSet key names and its selector; ok is false
// when it is gone (its expectations are dropped) or its selector invalid.
func (c *Controller) lookup(key string) (rs *appsv1.ReplicaSet, sel labels.Selector, ok bool) {
	obj, found := c.rsInf.Get(controllers.SplitKey(key))
	if !found {
		c.exp.Forget(key)
		return nil, nil, false
	}
	rs = obj.(*appsv1.ReplicaSet)
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		c.log.Warn("invalid selector; not syncing", "replicaset", key, "err", err)
		return nil, nil, false
	}
	return rs, sel, true
}

// candidatePods are the active pods rs might own: those it owns already
// and the orphans in its namespace its selector matches (a pod another
// controller owns is never adopted, so it is never looked at: a sync costs
// what rs owns, not what the namespace holds).
func (c *Controller) candidatePods(rs *appsv1.ReplicaSet, sel labels.Selector) []*corev1.Pod {
	owned := c.podInf.ByIndex(controllers.IndexOwner, string(rs.UID))
	out := make([]*corev1.Pod, 0, len(owned))
	for _, o := range owned {
		// The owner index lists each pod once; it holds only pods rs owns.
		if p := o.(*corev1.Pod); p.Namespace == rs.Namespace && isActive(p) {
			out = append(out, p)
		}
	}
	for _, o := range c.podInf.ByIndex(controllers.IndexOrphan, rs.Namespace) {
		// An orphan rs also owns (a reference that is not its controller's)
		// was listed above already.
		p := o.(*corev1.Pod)
		if sel.Matches(labels.Set(p.Labels)) && isActive(p) && !ownedBy(p, rs.UID) {
			out = append(out, p)
		}
	}
	return out
}

// ownedBy reports whether any of pod's owner references names uid.
func ownedBy(pod *corev1.Pod, uid types.UID) bool {
	for i := range pod.OwnerReferences {
		if pod.OwnerReferences[i].UID == uid {
			return true
		}
	}
	return false
}
