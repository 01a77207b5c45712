package podgc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// pass is what one collection knows about the nodes.
type pass struct {
	now     time.Time
	nodes   map[string]*corev1.Node
	gone    map[string]bool // missing nodes the API confirmed gone this pass
	missing map[string]bool // nodes pods are bound to but the cache lacks
}

// collect makes one pass over every pod.
func (c *Controller) collect(ctx context.Context) error {
	p := &pass{now: c.now(), nodes: map[string]*corev1.Node{}, gone: map[string]bool{}, missing: map[string]bool{}}
	for _, o := range c.nodeInf.List("", nil) {
		n := o.(*corev1.Node)
		p.nodes[n.Name] = n
	}
	var finished []*corev1.Pod
	var errs []error
	for _, o := range c.podInf.List("", nil) {
		pod := o.(*corev1.Pod)
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			finished = append(finished, pod)
		}
		if why, cond := c.hopeless(ctx, p, pod); why != "" {
			errs = append(errs, c.failAndDelete(ctx, pod, why, cond))
		}
	}
	for name := range c.missing {
		if !p.missing[name] {
			delete(c.missing, name) // back, or no pod of it left
		}
	}
	errs = append(errs, c.trimFinished(ctx, finished))
	return errors.Join(errs...)
}

// hopeless says why no node will ever finish the pod ("" when one may),
// and the condition to mark it with before it goes: DisruptionTarget for
// a pod whose Node is gone, as upstream (none for out of service, whose
// NoExecute taint the taint manager has marked it for already).
func (c *Controller) hopeless(ctx context.Context, p *pass, pod *corev1.Pod) (string, *corev1.PodCondition) {
	name := pod.Spec.NodeName
	if name == "" {
		return "", nil
	}
	node, ok := p.nodes[name]
	switch {
	case !ok && c.nodeGone(ctx, p, name):
		cond := api.DisruptionTarget(api.DisruptionByPodGC, "PodGC: node no longer exists", p.now)
		return fmt.Sprintf("node %s no longer exists", name), &cond
	case ok && pod.DeletionTimestamp != nil && outOfService(node):
		return fmt.Sprintf("node %s is out of service", name), nil
	}
	return "", nil
}

// nodeGone says whether a node the cache lacks has been missing for the
// quarantine and the API confirms it is gone.
func (c *Controller) nodeGone(ctx context.Context, p *pass, name string) bool {
	p.missing[name] = true
	if gone, asked := p.gone[name]; asked {
		return gone
	}
	first, ok := c.missing[name]
	if !ok {
		c.missing[name] = p.now
		c.queue.AddAfter(gcKey, c.cfg.Quarantine)
		return false
	}
	if p.now.Sub(first) < c.cfg.Quarantine {
		return false
	}
	_, err := c.client.Get(ctx, nodesRes, "", name)
	p.gone[name] = apierrors.IsNotFound(err)
	return p.gone[name]
}

// outOfService: the node carries upstream's out-of-service taint and is
// not Ready.
func outOfService(node *corev1.Node) bool {
	tainted := slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeOutOfService })
	ready := slices.ContainsFunc(node.Status.Conditions, func(c corev1.NodeCondition) bool {
		return c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
	})
	return tainted && !ready
}

// trimFinished deletes the oldest finished pods beyond the threshold.
func (c *Controller) trimFinished(ctx context.Context, finished []*corev1.Pod) error {
	n := len(finished) - c.cfg.Threshold
	if c.cfg.Threshold < 0 || n <= 0 {
		return nil
	}
	slices.SortFunc(finished, func(a, b *corev1.Pod) int {
		if d := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); d != 0 {
			return d
		}
		return cmp.Compare(controllers.KeyOf(a), controllers.KeyOf(b))
	})
	var errs []error
	for _, pod := range finished[:n] {
		errs = append(errs, c.forceDelete(ctx, pod, fmt.Sprintf("more than %d finished pods", c.cfg.Threshold)))
	}
	return errors.Join(errs...)
}

// forceDelete deletes the pod with grace 0, guarded by its UID.
func (c *Controller) forceDelete(ctx context.Context, pod *corev1.Pod, why string) error {
	zero := int64(0)
	err := c.client.Delete(ctx, podsRes, pod.Namespace, pod.Name, controllers.DeleteOptions{UID: string(pod.UID), GracePeriod: &zero})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete pod %s: %w", controllers.KeyOf(pod), err)
	}
	c.log.Info("deleted pod", "pod", controllers.KeyOf(pod), "reason", why)
	return nil
}
