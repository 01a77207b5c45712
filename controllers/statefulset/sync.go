package statefulset

import (
	"context"
	"errors"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
)

// state is what one sync decides from: the set's pods by ordinal within
// [start, start+replicas) (nil where missing), the pods beyond that range
// (condemned, highest ordinal first), every pod the set owns, and its
// revisions.
type state struct {
	start     int
	replicas  []*corev1.Pod
	condemned []*corev1.Pod
	all       []*corev1.Pod
	revs      *revisions
}

func (c *Controller) snapshot(set *appsv1.StatefulSet, revs *revisions) *state {
	st := &state{start: startOrdinal(set), replicas: make([]*corev1.Pod, replicaCount(set)), revs: revs}
	type member struct {
		ord int
		pod *corev1.Pod
	}
	var out []member
	for _, o := range c.podInf.ByIndex(controllers.IndexOwner, string(set.UID)) {
		pod := o.(*corev1.Pod)
		ord, ok := ordinalOf(set, pod.Name)
		if !ok || pod.Namespace != set.Namespace || !metav1.IsControlledBy(pod, set) {
			continue
		}
		st.all = append(st.all, pod)
		if i := ord - st.start; i >= 0 && i < len(st.replicas) {
			st.replicas[i] = pod
		} else {
			out = append(out, member{ord, pod})
		}
	}
	slices.SortFunc(out, func(a, b member) int { return b.ord - a.ord })
	for _, m := range out {
		st.condemned = append(st.condemned, m.pod)
	}
	return st
}

// sync brings one StatefulSet in line: its revisions, then its pods and
// claims (unless earlier creates and deletes are still unseen by the
// cache), then its history and status.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name := controllers.SplitKey(key)
	o, ok := c.setInf.Get(ns, name)
	if !ok {
		c.exp.Forget(key)
		return nil
	}
	set := o.(*appsv1.StatefulSet)
	if set.DeletionTimestamp != nil {
		return nil
	}
	if err := c.claimPods(ctx, set); err != nil {
		return err
	}
	revs, err := c.loadRevisions(ctx, set)
	if err != nil {
		return err
	}
	st := c.snapshot(set, revs)
	if !c.exp.Satisfied(key, controllers.CachedPods(c.podInf, ns)) {
		c.queue.AddAfter(key, expectationTimeout) // in case the pod events never come
	} else {
		err = c.reconcile(ctx, key, set, st)
	}
	return errors.Join(err, c.truncateHistory(ctx, set, st), c.updateStatus(ctx, key, set, st))
}
