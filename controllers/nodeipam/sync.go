package nodeipam

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sync gives the Node a range (and the backend annotation) when it lacks
// one, or frees the range of a Node that is gone.
func (c *Controller) sync(ctx context.Context, name string) error {
	obj, ok := c.nodeInf.Get("", name)
	if !ok {
		c.releaseNode(name)
		return nil
	}
	node := obj.(*corev1.Node)
	if node.DeletionTimestamp != nil {
		return nil
	}
	if node.Spec.PodCIDR != "" {
		c.mu.Lock()
		c.noteLocked(node)
		c.mu.Unlock()
		return c.ensureAnnotation(ctx, node)
	}
	return c.assign(ctx, node)
}

// assign allocates a range and writes it; a full cluster CIDR is reported
// on the Node and waits for a release.
func (c *Controller) assign(ctx context.Context, node *corev1.Node) error {
	p, err := c.take(node.Name)
	if errors.Is(err, ErrFull) {
		return c.reportFull(ctx, node)
	}
	if err != nil {
		return err
	}
	upd := node.DeepCopy()
	upd.Spec.PodCIDR, upd.Spec.PodCIDRs = p.String(), []string{p.String()}
	c.stamp(upd)
	if _, err := c.client.Update(ctx, upd); err != nil {
		return fmt.Errorf("node %s: write podCIDR %s: %w", node.Name, p, err)
	}
	c.log.Info("node range assigned", "node", node.Name, "podCIDR", p)
	return c.clearUnavailable(ctx, node.Name)
}

// take is the range for the named Node: the one it holds already (a
// write that failed, a Node deleted and made again before its deletion
// was handled), else a new one. The range is the Node's until it is
// deleted, so a failed write is retried with the same range.
func (c *Controller) take(name string) (netip.Prefix, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.byNode[name]; ok {
		return p, nil
	}
	p, err := c.alloc.allocate()
	if err != nil {
		return p, err
	}
	c.byNode[name] = p
	return p, nil
}

// releaseNode frees a deleted Node's range and gives the Nodes waiting
// for one another try.
func (c *Controller) releaseNode(name string) {
	c.mu.Lock()
	p, ok := c.byNode[name]
	if ok {
		delete(c.byNode, name)
		c.alloc.release(p)
	}
	c.mu.Unlock()
	if !ok {
		return
	}
	c.log.Info("node range released", "node", name, "podCIDR", p)
	for _, o := range c.nodeInf.List("", nil) {
		if o.(*corev1.Node).Spec.PodCIDR == "" {
			c.queue.Add(o.GetName())
		}
	}
}

// ensureAnnotation stamps the backend and cluster CIDR on a Node that has
// a range already (one made before this server, or by a server with
// other flags).
func (c *Controller) ensureAnnotation(ctx context.Context, node *corev1.Node) error {
	if node.Annotations[NetworkBackendAnnotation] == c.backend && node.Annotations[ClusterCIDRAnnotation] == c.cidr {
		return nil
	}
	upd := node.DeepCopy()
	c.stamp(upd)
	if _, err := c.client.Update(ctx, upd); err != nil {
		return fmt.Errorf("node %s: annotate network backend: %w", node.Name, err)
	}
	return nil
}

// stamp writes what agents learn from their Node: backend and cluster CIDR.
func (c *Controller) stamp(n *corev1.Node) {
	setAnnotation(n, NetworkBackendAnnotation, c.backend)
	setAnnotation(n, ClusterCIDRAnnotation, c.cidr)
}

func setAnnotation(n *corev1.Node, key, value string) {
	if n.Annotations == nil {
		n.Annotations = map[string]string{}
	}
	n.Annotations[key] = value
}

// reportFull writes the Event and the NetworkUnavailable condition once.
func (c *Controller) reportFull(ctx context.Context, node *corev1.Node) error {
	if cond := findCondition(node, corev1.NodeNetworkUnavailable); cond != nil &&
		cond.Status == corev1.ConditionTrue && cond.Reason == ReasonNoCIDRAvailable {
		return nil
	}
	c.events.Eventf(node, corev1.EventTypeWarning, ReasonCIDRNotAvailable,
		"Node %s has no pod range: every /%d of %s is taken", node.Name, c.alloc.maskSize, c.alloc.cluster)
	upd := node.DeepCopy()
	setCondition(upd, corev1.ConditionTrue, ReasonNoCIDRAvailable,
		fmt.Sprintf("no free /%d left in the cluster CIDR %s", c.alloc.maskSize, c.alloc.cluster))
	if _, err := c.client.UpdateStatus(ctx, upd); err != nil {
		return fmt.Errorf("node %s: report full cluster CIDR: %w", node.Name, err)
	}
	c.log.Warn("cluster CIDR full", "node", node.Name, "cidr", c.alloc.cluster)
	return nil
}

// clearUnavailable turns our NetworkUnavailable condition False once the
// Node has a range; a condition another part set is left alone.
func (c *Controller) clearUnavailable(ctx context.Context, name string) error {
	obj, err := c.client.Get(ctx, nodesRes, "", name)
	if err != nil {
		return fmt.Errorf("node %s: %w", name, err)
	}
	node := obj.(*corev1.Node)
	cond := findCondition(node, corev1.NodeNetworkUnavailable)
	if cond == nil || cond.Reason != ReasonNoCIDRAvailable {
		return nil
	}
	setCondition(node, corev1.ConditionFalse, "CIDRAssigned", "the node has a pod range")
	if _, err := c.client.UpdateStatus(ctx, node); err != nil {
		return fmt.Errorf("node %s: clear NetworkUnavailable: %w", name, err)
	}
	return nil
}

func findCondition(n *corev1.Node, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == t {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// setCondition sets NetworkUnavailable on n, which must be a copy.
func setCondition(n *corev1.Node, status corev1.ConditionStatus, reason, msg string) {
	now := metav1.Now()
	cond := corev1.NodeCondition{Type: corev1.NodeNetworkUnavailable, Status: status, Reason: reason,
		Message: msg, LastHeartbeatTime: now, LastTransitionTime: now}
	if old := findCondition(n, corev1.NodeNetworkUnavailable); old != nil {
		*old = cond
		return
	}
	n.Status.Conditions = append(n.Status.Conditions, cond)
}
