package nodelifecycle

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// The taints this controller owns.
var (
	unreachableTaint = corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}
	notReadyTaint    = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}
)

// syncNode makes the node's NoExecute readiness taint match its Ready
// condition, and its NoSchedule pressure taints its pressure conditions.
func (c *Controller) syncNode(ctx context.Context, name string) error {
	obj, ok := c.nodeInf.Get("", name)
	if !ok {
		return nil
	}
	node := asNode(obj)
	taints, changed := reconcileTaints(node.Spec.Taints, wantedTaint(readyStatus(node)), c.now())
	taints, pressed := reconcileConditionTaints(taints, node)
	if !changed && !pressed {
		return nil
	}
	upd := node.DeepCopy()
	upd.Spec.Taints = taints
	if _, err := c.client.Update(ctx, upd); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("update taints of node %s: %w", name, err) // a conflict retries on a fresher cache
	}
	c.log.Info("node readiness taints updated", "node", name, "ready", readyStatus(node))
	return nil
}

// wantedTaint is the readiness taint a node with that Ready status carries:
// none for True (or no Ready condition yet).
func wantedTaint(ready corev1.ConditionStatus) *corev1.Taint {
	switch ready {
	case corev1.ConditionUnknown:
		return &unreachableTaint
	case corev1.ConditionFalse:
		return &notReadyTaint
	}
	return nil
}

// reconcileTaints is taints with the readiness taint want (nil: none) in
// place of any other; a wanted taint already there keeps its timeAdded, a
// new one gets now. A NoExecute taint without timeAdded (set through the
// API) gets now, so that tolerationSeconds count from a fixed point.
func reconcileTaints(taints []corev1.Taint, want *corev1.Taint, now time.Time) ([]corev1.Taint, bool) {
	out := make([]corev1.Taint, 0, len(taints)+1)
	changed, have := false, false
	stamp := metav1.NewTime(now.UTC().Truncate(time.Second))
	for _, t := range taints {
		if isReadinessTaint(t) && (want == nil || !t.MatchTaint(want)) {
			changed = true
			continue
		}
		if want != nil && t.MatchTaint(want) {
			have = true
		}
		if t.Effect == corev1.TaintEffectNoExecute && t.TimeAdded == nil {
			t.TimeAdded, changed = &stamp, true
		}
		out = append(out, t)
	}
	if want != nil && !have {
		t := *want
		t.TimeAdded = &stamp
		out, changed = append(out, t), true
	}
	return out, changed
}

func isReadinessTaint(t corev1.Taint) bool {
	return t.MatchTaint(&unreachableTaint) || t.MatchTaint(&notReadyTaint)
}

// readyStatus is the node's Ready condition status, "" without one.
func readyStatus(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

// noExecuteTaints are the node's taints with effect NoExecute.
func noExecuteTaints(n *corev1.Node) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

func sameTaints(a, b *corev1.Node) bool {
	return slices.EqualFunc(a.Spec.Taints, b.Spec.Taints, func(x, y corev1.Taint) bool {
		return x.MatchTaint(&y) && x.Value == y.Value && x.TimeAdded.Equal(y.TimeAdded)
	})
}

func asNode(o api.Object) *corev1.Node { return o.(*corev1.Node) }
func asPod(o api.Object) *corev1.Pod   { return o.(*corev1.Pod) }
