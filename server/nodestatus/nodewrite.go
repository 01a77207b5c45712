package nodestatus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// Why a node is Ready=Unknown, in the condition's reason and message.
const (
	ReasonNodeStatusUnknown = "NodeStatusUnknown"
	MessageStatusUnknown    = "The bramble agent stopped sending heartbeats."
)

// agentConditions are the conditions a lapsed lease turns Unknown: the
// ones agents report about themselves.
var agentConditions = []corev1.NodeConditionType{
	corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure,
}

// tombstoneTTL is how long heartbeats of a deleted Node are ignored (its
// certificate is revoked with it; a message already in flight must not
// create it again).
const tombstoneTTL = 2 * time.Minute

// maxAttempts bounds the read-modify-write retries on a conflict.
const maxAttempts = 4

// syncNode brings the stored Node in line with what the Monitor knows:
// creates it at the first heartbeat, writes status when the view a user
// sees changed, and writes nothing otherwise.
func (m *Monitor) syncNode(ctx context.Context, name string) error {
	for range maxAttempts {
		m.mu.Lock()
		st := m.nodes[name]
		if st == nil {
			m.mu.Unlock()
			return nil
		}
		hb, lost, existed := st.latest, st.lost, st.exists
		m.mu.Unlock()

		cur, err := getNode(ctx, m.cfg.Store, name)
		switch {
		case errors.Is(err, datastore.ErrNotFound):
			err = m.nodeMissing(ctx, name, hb, lost, existed)
		case err == nil:
			err = m.updateNode(ctx, cur, hb, lost)
		}
		if !apierrors.IsConflict(err) && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return fmt.Errorf("node %s: still conflicting after %d attempts", name, maxAttempts)
}

// nodeMissing handles a Node that is not stored: deleted by someone (it
// existed; forget the node for a while), or never created (create it from
// the heartbeat).
func (m *Monitor) nodeMissing(ctx context.Context, name string, hb *mqtt.Heartbeat, lost, existed bool) error {
	if existed || hb == nil || lost {
		m.mu.Lock()
		delete(m.nodes, name)
		if existed {
			m.tombs[name] = m.cfg.Now().Add(tombstoneTTL)
		}
		m.mu.Unlock()
		return nil
	}
	now := metav1.NewTime(m.cfg.Now().UTC().Truncate(time.Second))
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: maps.Clone(hb.Labels), Annotations: platformAnnotations(nil, hb)},
		Spec:       corev1.NodeSpec{Taints: slices.Clone(hb.Taints)},
		Status:     *composeStatus(&corev1.NodeStatus{}, hb, false, now),
	}
	if err := m.limiter.wait(ctx); err != nil {
		return err
	}
	out, err := m.cfg.Writer.Create(ctx, node)
	if err != nil {
		return fmt.Errorf("create node %s: %w", name, err)
	}
	m.counters.nodeWrites.Add(1)
	m.log.Info("registered node", "node", name)
	m.setWritten(out.(*corev1.Node))
	return nil
}

// updateNode writes cur's status when what a user sees would change.
func (m *Monitor) updateNode(ctx context.Context, cur *corev1.Node, hb *mqtt.Heartbeat, lost bool) error {
	cur, err := m.updatePlatforms(ctx, cur, hb, lost)
	if err != nil {
		return err
	}
	now := metav1.NewTime(m.cfg.Now().UTC().Truncate(time.Second))
	next := composeStatus(&cur.Status, hb, lost, now)
	if !statusView(&cur.Status).differs(statusView(next), m.cfg.ResourceChange) {
		m.setWritten(cur)
		return nil
	}
	if err := m.limiter.wait(ctx); err != nil {
		return err
	}
	upd := cur.DeepCopy()
	upd.Status = *next
	out, err := m.cfg.Writer.UpdateStatus(ctx, upd)
	if err != nil {
		return fmt.Errorf("update status of node %s: %w", cur.Name, err)
	}
	m.counters.nodeWrites.Add(1)
	m.setWritten(out.(*corev1.Node))
	return nil
}

func (m *Monitor) setWritten(n *corev1.Node) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if st := m.nodes[n.Name]; st != nil {
		st.written, st.exists = statusView(&n.Status), true
		st.agentAnn = agentAnnotations(n.Annotations)
	}
}

// agentAnnotations picks the agent's own annotations out of annotations.
func agentAnnotations(annotations map[string]string) map[string]string {
	out := map[string]string{}
	for _, k := range mqtt.AgentAnnotations {
		if v, ok := annotations[k]; ok {
			out[k] = v
		}
	}
	return out
}

// composeStatus is cur brought up to date: with the heartbeat's figures
// and conditions, or, when the lease lapsed (or no heartbeat came since
// the server started), with the agent's conditions Unknown.
func composeStatus(cur *corev1.NodeStatus, hb *mqtt.Heartbeat, lost bool, now metav1.Time) *corev1.NodeStatus {
	out := cur.DeepCopy()
	if lost || hb == nil {
		for _, t := range agentConditions {
			if c := findCondition(out.Conditions, t); c != nil || t == corev1.NodeReady {
				out.Conditions = setCondition(out.Conditions, t, corev1.ConditionUnknown,
					ReasonNodeStatusUnknown, MessageStatusUnknown, now)
			}
		}
		return out
	}
	r := &hb.Status
	out.Capacity, out.Allocatable = r.Capacity.DeepCopy(), r.Allocatable.DeepCopy()
	out.Addresses, out.Images = slices.Clone(r.Addresses), slices.Clone(r.Images)
	out.NodeInfo = r.NodeInfo
	for _, c := range r.Conditions {
		out.Conditions = setCondition(out.Conditions, c.Type, c.Status, c.Reason, c.Message, now)
	}
	return out
}

// updatePlatforms writes the image platforms a heartbeat reports into the
// Node's ImagePlatformsAnnotation when they differ, and returns the Node
// as stored.
func (m *Monitor) updatePlatforms(ctx context.Context, cur *corev1.Node, hb *mqtt.Heartbeat, lost bool) (*corev1.Node, error) {
	if lost || hb == nil {
		return cur, nil
	}
	want := platformAnnotations(cur.Annotations, hb)
	if maps.Equal(want, cur.Annotations) || len(want) == 0 && len(cur.Annotations) == 0 {
		return cur, nil
	}
	if err := m.limiter.wait(ctx); err != nil {
		return nil, err
	}
	upd := cur.DeepCopy()
	upd.Annotations = want
	out, err := m.cfg.Writer.Update(ctx, upd)
	if err != nil {
		return nil, fmt.Errorf("update image platforms of node %s: %w", cur.Name, err)
	}
	m.counters.nodeWrites.Add(1)
	return out.(*corev1.Node), nil
}

// platformAnnotations is annotations with ImagePlatformsAnnotation set to
// the heartbeat's image platforms (JSON, keys sorted), or removed when it
// reports none, and the agent's own annotations (mqtt.AgentAnnotations:
// what other nodes route by) set as the heartbeat gives them.
func platformAnnotations(annotations map[string]string, hb *mqtt.Heartbeat) map[string]string {
	out := maps.Clone(annotations)
	for _, k := range mqtt.AgentAnnotations {
		if v, ok := hb.Annotations[k]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		} else {
			delete(out, k)
		}
	}
	if len(hb.Status.ImagePlatforms) == 0 {
		delete(out, mqtt.ImagePlatformsAnnotation)
		return out
	}
	b, err := json.Marshal(hb.Status.ImagePlatforms)
	if err != nil {
		return out
	}
	if out == nil {
		out = map[string]string{}
	}
	out[mqtt.ImagePlatformsAnnotation] = string(b)
	return out
}

// setCondition sets one condition, keeping its lastTransitionTime when its
// status stays. lastHeartbeatTime is the time of this write: unlike
// Kubernetes, bramble does not rewrite it per heartbeat.
func setCondition(conds []corev1.NodeCondition, t corev1.NodeConditionType, status corev1.ConditionStatus,
	reason, message string, now metav1.Time) []corev1.NodeCondition {
	c := findCondition(conds, t)
	if c == nil {
		conds = append(conds, corev1.NodeCondition{Type: t, LastTransitionTime: now})
		c = &conds[len(conds)-1]
	} else if c.Status != status {
		c.LastTransitionTime = now
	}
	c.Status, c.Reason, c.Message, c.LastHeartbeatTime = status, reason, message, now
	return conds
}

func findCondition(conds []corev1.NodeCondition, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}
