package daemonset

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
)

// state is what one sync decides from: the template's hash, every node
// (by name), and the DaemonSet's live pods by node, oldest first.
type state struct {
	hash   string
	nodes  []*corev1.Node
	byNode map[string][]*corev1.Pod
	// stopping counts the pods per node being deleted: as upstream, a
	// node gets its new pod only once the old one is gone.
	stopping map[string]int
}

func (c *Controller) snapshot(ds *appsv1.DaemonSet) *state {
	st := &state{hash: templateHash(&ds.Spec.Template), byNode: map[string][]*corev1.Pod{}, stopping: map[string]int{}}
	for _, o := range c.nodeInf.List("", nil) {
		st.nodes = append(st.nodes, o.(*corev1.Node))
	}
	slices.SortFunc(st.nodes, func(a, b *corev1.Node) int { return cmp.Compare(a.Name, b.Name) })
	for _, o := range c.podInf.ByIndex(controllers.IndexOwner, string(ds.UID)) {
		pod := o.(*corev1.Pod)
		ref := metav1.GetControllerOf(pod)
		if ref == nil || ref.UID != ds.UID || pod.Namespace != ds.Namespace {
			continue
		}
		if pod.DeletionTimestamp != nil {
			st.stopping[pod.Spec.NodeName]++
			continue
		}
		st.byNode[pod.Spec.NodeName] = append(st.byNode[pod.Spec.NodeName], pod)
	}
	for _, pods := range st.byNode {
		slices.SortFunc(pods, olderFirst)
	}
	return st
}

func olderFirst(a, b *corev1.Pod) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

// sync brings one DaemonSet's pods in line: first the pods each node
// needs (manage), then, when that changed nothing and no earlier change
// is still unseen by the cache, one step of the rolling update; the
// status is written last.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name := controllers.SplitKey(key)
	o, ok := c.dsInf.Get(ns, name)
	if !ok {
		c.exp.Forget(key)
		c.backoff.forget(key)
		return nil
	}
	ds := o.(*appsv1.DaemonSet)
	if ds.DeletionTimestamp != nil {
		return nil
	}
	st := c.snapshot(ds)
	err := c.syncHistory(ctx, ds, st)
	if !c.exp.Satisfied(key, controllers.CachedPods(c.podInf, ns)) {
		c.queue.AddAfter(key, expectationTimeout) // in case the pod events never come
	} else {
		acted, merr := c.manage(ctx, key, ds, st)
		if !acted && merr == nil && ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
			merr = c.rollingUpdate(ctx, key, ds, st)
		}
		err = errors.Join(err, merr)
	}
	return errors.Join(err, c.updateStatus(ctx, key, ds, st))
}

// manage creates the pods nodes lack and deletes those that should go;
// acted reports whether it tried anything.
func (c *Controller) manage(ctx context.Context, key string, ds *appsv1.DaemonSet, st *state) (acted bool, err error) {
	createOn, remove := c.plan(key, ds, st)
	var errs []error
	for _, node := range createOn {
		errs = append(errs, c.createPod(ctx, key, ds, st.hash, node))
	}
	for _, pod := range remove {
		errs = append(errs, c.deletePod(ctx, key, ds, pod))
	}
	return len(createOn)+len(remove) > 0, errors.Join(errs...)
}

// plan lists the nodes that need a pod and the pods to delete: all pods
// on nodes that are gone or where the pod may not continue, and on the
// other nodes the extra ones.
func (c *Controller) plan(key string, ds *appsv1.DaemonSet, st *state) (createOn []string, remove []*corev1.Pod) {
	now := c.now()
	seen := make(map[string]bool, len(st.nodes))
	for _, node := range st.nodes {
		seen[node.Name] = true
		pl := nodePlacement(node, &ds.Spec.Template.Spec)
		pods := st.byNode[node.Name]
		switch {
		case pl.shouldRun && len(pods) == 0:
			if st.stopping[node.Name] == 0 {
				createOn = append(createOn, node.Name)
			}
		case pl.shouldContinue:
			remove = append(remove, c.extraPods(key, node.Name, pods, now)...)
		default:
			remove = append(remove, pods...)
		}
	}
	for node, pods := range st.byNode {
		if !seen[node] {
			remove = append(remove, pods...)
		}
	}
	return createOn, remove
}

// extraPods picks the pods to delete on a node that keeps its daemon pod:
// finished ones (a failed one once the node's back-off allows) and every
// running one but the oldest.
func (c *Controller) extraPods(key, node string, pods []*corev1.Pod, now time.Time) []*corev1.Pod {
	var out, running []*corev1.Pod
	for _, pod := range pods {
		switch pod.Status.Phase {
		case corev1.PodFailed:
			wait := c.backoff.next(key+"/"+node, now, c.FailedPodBackoff, c.FailedPodBackoffMax)
			if wait > 0 {
				c.queue.AddAfter(key, wait)
				continue
			}
			out = append(out, pod)
		case corev1.PodSucceeded:
			out = append(out, pod)
		default:
			running = append(running, pod)
		}
	}
	if len(running) > 1 {
		out = append(out, running[1:]...)
	}
	return out
}
