package disruption

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

func webPod(name string, ready bool) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
	if ready {
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
	return p
}

func budget(minAvail, maxUnavail *intstr.IntOrString) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Generation: 3},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: minAvail, MaxUnavailable: maxUnavail,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
}

// TestCompute covers the ways a budget counts what must stay healthy.
func TestCompute(t *testing.T) {
	one, pct, unav := intstr.FromInt32(1), intstr.FromString("50%"), intstr.FromInt32(1)
	rs := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "rs-uid", Controller: ptr(true)}
	owned := func(p *corev1.Pod) *corev1.Pod { p.OwnerReferences = []metav1.OwnerReference{rs}; return p }
	pods := []*corev1.Pod{owned(webPod("a", true)), owned(webPod("b", true)), owned(webPod("c", false)),
		webPod("done", true), {ObjectMeta: metav1.ObjectMeta{Name: "other", Labels: map[string]string{"app": "db"}}}}
	pods[3].Status.Phase = corev1.PodSucceeded
	scale := func(ref *metav1.OwnerReference, _ string) (int32, bool) { return 4, ref.UID == "rs-uid" }
	cases := []struct {
		name                               string
		pdb                                *policyv1.PodDisruptionBudget
		expected, healthy, desired, allows int32
	}{
		{"minAvailable 1", budget(&one, nil), 3, 2, 1, 1},
		{"minAvailable 50% of the ReplicaSet's 4", budget(&pct, nil), 4, 2, 2, 0},
		{"maxUnavailable 1 of 4", budget(nil, &unav), 4, 2, 3, 0},
	}
	for _, tc := range cases {
		st := Compute(tc.pdb, pods, scale, time.Now())
		if st.ExpectedPods != tc.expected || st.CurrentHealthy != tc.healthy || st.DesiredHealthy != tc.desired || st.DisruptionsAllowed != tc.allows {
			t.Errorf("%s: got expected %d healthy %d desired %d allowed %d, want %d %d %d %d", tc.name,
				st.ExpectedPods, st.CurrentHealthy, st.DesiredHealthy, st.DisruptionsAllowed, tc.expected, tc.healthy, tc.desired, tc.allows)
		}
		if st.ObservedGeneration != 3 || len(st.Conditions) != 1 || (st.Conditions[0].Status == metav1.ConditionTrue) != (tc.allows > 0) {
			t.Errorf("%s: got generation %d conditions %+v", tc.name, st.ObservedGeneration, st.Conditions)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestControllerWritesStatus runs the controller on the real registry:
// the budget's status follows pods becoming ready and going away.
func TestControllerWritesStatus(t *testing.T) {
	env := controllertest.New(t)
	c := New(controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log})
	env.Start()
	env.Go(func(ctx context.Context) { c.Run(ctx, 1) })
	one := intstr.FromInt32(1)
	controllertest.MustCreate(env, budget(&one, nil))
	for i := range 3 {
		p := controllertest.MustCreate(env, webPod(fmt.Sprintf("w%d", i), false))
		p.Status = webPod("", true).Status
		if _, err := env.Client.UpdateStatus(env.Ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	waitAllowed(env, 2)
	if err := env.Client.Delete(env.Ctx, podResource, "default", "w0", controllers.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAllowed(env, 1)
}

func waitAllowed(env *controllertest.Env, want int32) {
	env.T.Helper()
	env.Eventually(10*time.Second, func() error {
		b := controllertest.MustGet[*policyv1.PodDisruptionBudget](env, pdbResource, "default", "web")
		if b.Status.DisruptionsAllowed != want {
			return fmt.Errorf("disruptionsAllowed %d, want %d (status %+v)", b.Status.DisruptionsAllowed, want, b.Status)
		}
		return nil
	})
}
