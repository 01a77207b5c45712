package deployment

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
)

// Condition reasons, as Kubernetes writes them (kubectl matches on some).
const (
	ReasonMinAvailable   = "MinimumReplicasAvailable"
	ReasonMinUnavailable = "MinimumReplicasUnavailable"
	ReasonNewRSCreated   = "NewReplicaSetCreated"
	ReasonFoundNewRS     = "FoundNewReplicaSet"
	ReasonRSUpdated      = "ReplicaSetUpdated"
	ReasonNewRSAvailable = "NewReplicaSetAvailable"
	ReasonTimedOut       = "ProgressDeadlineExceeded"
	ReasonPaused         = "DeploymentPaused"
	ReasonResumed        = "DeploymentResumed"
	ReasonCreateError    = "ReplicaSetCreateError"
)

// calculateStatus derives the Deployment's counts from its ReplicaSets and
// sets the Available condition; other conditions are carried over.
func (p *pass) calculateStatus(all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) appsv1.DeploymentStatus {
	avail := sumStatus(statusAvailable, all...)
	st := appsv1.DeploymentStatus{
		ObservedGeneration:  p.d.Generation,
		Replicas:            sumStatus(statusReplicas, all...),
		UpdatedReplicas:     sumStatus(statusReplicas, newRS),
		ReadyReplicas:       sumStatus(statusReady, all...),
		AvailableReplicas:   avail,
		UnavailableReplicas: max(sumSpec(all...)-avail, 0),
		CollisionCount:      p.d.Status.CollisionCount,
		Conditions:          append([]appsv1.DeploymentCondition(nil), p.d.Status.Conditions...),
	}
	_, unavailable := fenceposts(p.d)
	cond := newCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse, ReasonMinUnavailable,
		"Deployment does not have minimum availability.", p.c.now())
	if avail >= desired(p.d)-unavailable {
		cond = newCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue, ReasonMinAvailable,
			"Deployment has minimum availability.", p.c.now())
	}
	setCondition(&st, cond)
	return st
}

// syncRolloutStatus writes the status of a rollout step, including the
// Progressing condition: complete, progressing, or past its deadline. With
// nothing to write, a rollout that may time out is checked again later.
func (p *pass) syncRolloutStatus(ctx context.Context, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) error {
	st := p.calculateStatus(all, newRS)
	if !hasDeadline(p.d) {
		removeCondition(&st, appsv1.DeploymentProgressing)
	}
	cur := getCondition(&p.d.Status, appsv1.DeploymentProgressing)
	settled := st.Replicas == st.UpdatedReplicas && cur != nil && cur.Reason == ReasonNewRSAvailable
	if hasDeadline(p.d) && !settled {
		p.progress(&st, newRS, cur)
	}
	p.replicaFailure(&st, all, newRS)
	if statusEqual(&p.d.Status, &st) {
		p.requeueStuck(&st)
		return nil
	}
	p.d.Status = st
	return p.writeStatus(ctx)
}

func (p *pass) progress(st *appsv1.DeploymentStatus, newRS *appsv1.ReplicaSet, cur *appsv1.DeploymentCondition) {
	subject := fmt.Sprintf("Deployment %q", p.d.Name)
	if newRS != nil {
		subject = fmt.Sprintf("ReplicaSet %q", newRS.Name)
	}
	now := p.c.now()
	switch {
	case deploymentComplete(p.d, st):
		setCondition(st, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonNewRSAvailable,
			subject+" has successfully progressed.", now))
	case progressing(&p.d.Status, st):
		c := newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonRSUpdated, subject+" is progressing.", now)
		if cur != nil && cur.Status == corev1.ConditionTrue {
			c.LastTransitionTime = cur.LastTransitionTime
		}
		removeCondition(st, appsv1.DeploymentProgressing)
		st.Conditions = append(st.Conditions, c)
	case timedOut(p.d, st, now):
		setCondition(st, newCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, ReasonTimedOut,
			subject+" has timed out progressing.", now))
	}
}

// replicaFailure surfaces a ReplicaSet's ReplicaFailure condition (the new
// ReplicaSet's first) on the Deployment.
func (p *pass) replicaFailure(st *appsv1.DeploymentStatus, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) {
	for _, rs := range append([]*appsv1.ReplicaSet{newRS}, all...) {
		if rs == nil {
			continue
		}
		for _, c := range rs.Status.Conditions {
			if c.Type == appsv1.ReplicaSetReplicaFailure {
				setCondition(st, appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure,
					Status: c.Status, Reason: c.Reason, Message: c.Message,
					LastUpdateTime: c.LastTransitionTime, LastTransitionTime: c.LastTransitionTime})
				return
			}
		}
	}
	removeCondition(st, appsv1.DeploymentReplicaFailure)
}

// requeueStuck schedules a recheck for when an unfinished rollout would
// pass its deadline, since nothing else may wake us then.
func (p *pass) requeueStuck(st *appsv1.DeploymentStatus) {
	cur := getCondition(&p.d.Status, appsv1.DeploymentProgressing)
	if !hasDeadline(p.d) || cur == nil || cur.Reason == ReasonTimedOut || deploymentComplete(p.d, st) {
		return
	}
	deadline := cur.LastUpdateTime.Add(time.Duration(*p.d.Spec.ProgressDeadlineSeconds) * time.Second)
	after := max(deadline.Sub(p.c.now())+time.Second, 50*time.Millisecond)
	p.c.queue.AddAfter(controllers.KeyOf(p.d), after)
}

func hasDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// deploymentComplete: every replica is updated and available, and the
// status describes the current generation.
func deploymentComplete(d *appsv1.Deployment, st *appsv1.DeploymentStatus) bool {
	n := desired(d)
	return st.UpdatedReplicas == n && st.Replicas == n && st.AvailableReplicas == n &&
		st.ObservedGeneration >= d.Generation
}

// progressing: the rollout moved since the last status.
func progressing(old, cur *appsv1.DeploymentStatus) bool {
	return cur.UpdatedReplicas > old.UpdatedReplicas ||
		cur.Replicas-cur.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		cur.ReadyReplicas > old.ReadyReplicas ||
		cur.AvailableReplicas > old.AvailableReplicas
}

func timedOut(d *appsv1.Deployment, st *appsv1.DeploymentStatus, now time.Time) bool {
	c := getCondition(st, appsv1.DeploymentProgressing)
	if c == nil || c.Reason == ReasonNewRSAvailable {
		return false
	}
	if c.Reason == ReasonTimedOut {
		return true
	}
	deadline := c.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
	return deadline.Before(now)
}

func statusEqual(a, b *appsv1.DeploymentStatus) bool { return reflect.DeepEqual(a, b) }

func newCondition(t appsv1.DeploymentConditionType, s corev1.ConditionStatus, reason, msg string, now time.Time) appsv1.DeploymentCondition {
	ts := metav1.NewTime(now)
	return appsv1.DeploymentCondition{Type: t, Status: s, Reason: reason, Message: msg,
		LastUpdateTime: ts, LastTransitionTime: ts}
}

func (p *pass) setCondition(t appsv1.DeploymentConditionType, s corev1.ConditionStatus, reason, msg string) {
	setCondition(&p.d.Status, newCondition(t, s, reason, msg, p.c.now()))
}

func getCondition(st *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

// setCondition replaces the condition of c's type unless it already has
// c's status and reason; the transition time survives an unchanged status.
func setCondition(st *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	cur := getCondition(st, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	removeCondition(st, c.Type)
	st.Conditions = append(st.Conditions, c)
}

func removeCondition(st *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	var out []appsv1.DeploymentCondition
	for _, c := range st.Conditions {
		if c.Type != t {
			out = append(out, c)
		}
	}
	st.Conditions = out
}
