package deployment

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

const waitFor = 20 * time.Second

// harness runs a Deployment controller against the real store and
// admission path. No ReplicaSet controller runs unless a test starts one:
// tests play its part by writing ReplicaSet status themselves.
type harness struct {
	*controllertest.Env
	rss    *controllers.Informer
	events *controllers.Informer
}

func start(t testing.TB, others ...func(controllers.Deps) runner) *harness {
	t.Helper()
	env := controllertest.New(t)
	h := &harness{Env: env, rss: env.Cache.Informer(replicaSetsRes),
		events: env.Cache.Informer(controllers.MustResource("", "events"))}
	deps := controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log}
	runners := []runner{New(deps)}
	for _, mk := range others {
		runners = append(runners, mk(deps))
	}
	env.Start()
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan struct{}, len(runners))
	for _, r := range runners {
		go func() { r.Run(ctx, 2); done <- struct{}{} }()
	}
	t.Cleanup(func() {
		cancel()
		for range runners {
			<-done
		}
	})
	return h
}

type runner interface {
	Run(ctx context.Context, workers int)
}

func ptr[T any](v T) *T { return &v }

// deploymentObject is a RollingUpdate Deployment of image with the given
// surge and unavailable settings.
func deploymentObject(name string, replicas int32, image string, surge, unavailable intstr.IntOrString) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}},
			},
		},
	}
}

func (h *harness) create(d *appsv1.Deployment) *appsv1.Deployment {
	h.T.Helper()
	return controllertest.MustCreate(h.Env, d)
}

func (h *harness) get(name string) *appsv1.Deployment {
	h.T.Helper()
	return controllertest.MustGet[*appsv1.Deployment](h.Env, deploymentsRes, "default", name)
}

// modify applies fn to the stored Deployment and writes it, retrying on
// conflicts with the controller's own writes.
func (h *harness) modify(name string, fn func(d *appsv1.Deployment)) {
	h.T.Helper()
	for range 50 {
		d := h.get(name)
		fn(d)
		_, err := h.Client.Update(h.Ctx, d)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			h.T.Fatalf("update deployment %s: %v", name, err)
		}
	}
	h.T.Fatalf("update deployment %s: conflicts 50 times", name)
}

// owned lists the cached ReplicaSets the Deployment controls.
func (h *harness) owned(d *appsv1.Deployment) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, obj := range h.rss.ByIndex(controllers.IndexOwner, string(d.UID)) {
		rs := obj.(*appsv1.ReplicaSet)
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.UID == d.UID {
			out = append(out, rs)
		}
	}
	olderFirst(out)
	return out
}

// waitRSes waits until the Deployment controls n ReplicaSets.
func (h *harness) waitRSes(d *appsv1.Deployment, n int) []*appsv1.ReplicaSet {
	h.T.Helper()
	var got []*appsv1.ReplicaSet
	h.Eventually(waitFor, func() error {
		if got = h.owned(d); len(got) != n {
			return fmt.Errorf("deployment %s controls %d replica sets, want %d", d.Name, len(got), n)
		}
		return nil
	})
	return got
}

// setRSStatus plays the ReplicaSet controller: rs (as cached) has spec
// pods, available of them available. False when rs changed meanwhile.
func (h *harness) setRSStatus(rs *appsv1.ReplicaSet, available int32) bool {
	h.T.Helper()
	cp := rs.DeepCopy()
	n := specReplicas(rs)
	cp.Status = appsv1.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: available,
		AvailableReplicas: available, ObservedGeneration: rs.Generation}
	_, err := h.Client.UpdateStatus(h.Ctx, cp)
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		h.T.Fatalf("update status of replica set %s: %v", rs.Name, err)
	}
	return true
}

// settle marks every pod of every owned ReplicaSet available until the
// Deployment reports a finished rollout.
func (h *harness) settle(d *appsv1.Deployment) *appsv1.Deployment {
	h.T.Helper()
	var cur *appsv1.Deployment
	h.Eventually(waitFor, func() error {
		for _, rs := range h.owned(d) {
			if rs.Status.AvailableReplicas != specReplicas(rs) || rs.Status.Replicas != specReplicas(rs) ||
				rs.Status.ObservedGeneration != rs.Generation {
				h.setRSStatus(rs, specReplicas(rs))
			}
		}
		cur = h.get(d.Name)
		return rolledOut(cur)
	})
	return cur
}

// rolledOut is kubectl rollout status's test for success.
func rolledOut(d *appsv1.Deployment) error {
	st := d.Status
	switch {
	case d.Generation > st.ObservedGeneration:
		return fmt.Errorf("generation %d not observed (observed %d)", d.Generation, st.ObservedGeneration)
	case st.UpdatedReplicas < desired(d):
		return fmt.Errorf("updatedReplicas %d, want %d", st.UpdatedReplicas, desired(d))
	case st.Replicas > st.UpdatedReplicas:
		return fmt.Errorf("replicas %d > updatedReplicas %d", st.Replicas, st.UpdatedReplicas)
	case st.AvailableReplicas < st.UpdatedReplicas:
		return fmt.Errorf("availableReplicas %d < updatedReplicas %d", st.AvailableReplicas, st.UpdatedReplicas)
	}
	if c := getCondition(&st, appsv1.DeploymentProgressing); c != nil && c.Reason == ReasonTimedOut {
		return fmt.Errorf("progress deadline exceeded")
	}
	return nil
}

// condition returns the stored Deployment's condition of type t.
func (h *harness) condition(name string, t appsv1.DeploymentConditionType) appsv1.DeploymentCondition {
	h.T.Helper()
	d := h.get(name)
	if c := getCondition(&d.Status, t); c != nil {
		return *c
	}
	return appsv1.DeploymentCondition{}
}

// rsWithImage is the owned ReplicaSet running image.
func (h *harness) rsWithImage(d *appsv1.Deployment, image string) *appsv1.ReplicaSet {
	h.T.Helper()
	for _, rs := range h.owned(d) {
		if rs.Spec.Template.Spec.Containers[0].Image == image {
			return rs
		}
	}
	h.T.Fatalf("deployment %s has no replica set of image %s", d.Name, image)
	return nil
}

// sizeOf is the spec replicas of the owned ReplicaSet running image; -1
// while there is none.
func (h *harness) sizeOf(d *appsv1.Deployment, image string) int32 {
	for _, rs := range h.owned(d) {
		if rs.Spec.Template.Spec.Containers[0].Image == image {
			return specReplicas(rs)
		}
	}
	return -1
}
