package hpa

import (
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

// synthetic is pod usage set by the test (the hollow nodes' reports).
type synthetic struct {
	mu  sync.Mutex
	cpu map[string]int64
}

func (s *synthetic) set(name string, milli int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cpu[name] = milli
}

func (s *synthetic) PodUsage(_, name string) (int64, int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.cpu[name]
	return v, 1 << 20, ok
}

func runningPod(e *controllertest.Env, name string) {
	pod := controllertest.MustCreate(e, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
		Labels: map[string]string{"app": "burn"}}, Spec: corev1.PodSpec{NodeName: "pi-0", Containers: []corev1.Container{{
		Name: "burn", Image: "busybox", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}}})
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	if _, err := e.Client.UpdateStatus(e.Ctx, pod); err != nil {
		e.T.Fatal(err)
	}
}

// TestScaleUpAndDown: a Deployment's one pod burns 200m of a 100m request
// against a 50 % target: the HPA scales it to 3 (its maximum, not 4), and
// when the pods go idle, back to 1 once the 2 s scale-down window passed.
func TestScaleUpAndDown(t *testing.T) {
	e := controllertest.New(t)
	usage := &synthetic{cpu: map[string]int64{}}
	c := New(controllers.Deps{Cache: e.Cache, Client: e.Client, Log: e.Log, PodMetrics: usage}, Config{SyncPeriod: 100 * time.Millisecond})
	e.Start()
	go c.Run(e.Ctx, 1)
	one, window, fifty := int32(1), int32(2), int32(50)
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "burn"}}
	controllertest.MustCreate(e, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "burn", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: sel, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: sel.MatchLabels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "burn", Image: "busybox"}}}}}})
	runningPod(e, "burn-0")
	usage.set("burn-0", 200)
	controllertest.MustCreate(e, &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "burn", Namespace: "default"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: &one, MaxReplicas: 3,
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "burn"},
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &fifty}}}},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &window}}}})
	deployRes, hpaRes := controllertest.Resource("apps", "deployments"), hpaResource
	waitReplicas := func(want int32) {
		e.Eventually(10*time.Second, func() error {
			d := controllertest.MustGet[*appsv1.Deployment](e, deployRes, "default", "burn")
			if *d.Spec.Replicas != want {
				return fmt.Errorf("deployment replicas: got %d, want %d", *d.Spec.Replicas, want)
			}
			return nil
		})
	}
	waitReplicas(3)
	// The HPA writes the target's scale first and its own status after.
	e.Eventually(10*time.Second, func() error {
		h := controllertest.MustGet[*autoscalingv2.HorizontalPodAutoscaler](e, hpaRes, "default", "burn")
		if got := conditionReason(h, autoscalingv2.ScalingLimited); got != "TooManyReplicas" {
			return fmt.Errorf("ScalingLimited: got %q, want TooManyReplicas", got)
		}
		if got := conditionReason(h, autoscalingv2.ScalingActive); got != "ValidMetricFound" {
			return fmt.Errorf("ScalingActive: got %q, want ValidMetricFound", got)
		}
		if m := h.Status.CurrentMetrics; len(m) != 1 || *m[0].Resource.Current.AverageUtilization != 200 {
			return fmt.Errorf("currentMetrics: got %+v, want 200 %% CPU", m)
		}
		return nil
	})
	runningPod(e, "burn-1")
	runningPod(e, "burn-2")
	idleAt := time.Now()
	for _, p := range []string{"burn-0", "burn-1", "burn-2"} {
		usage.set(p, 5)
	}
	waitReplicas(1)
	// The window runs from the last busy recommendation, which the sync
	// before the pods went idle recorded: up to a sync period (more on a
	// loaded machine) before idleAt. Without the window the scale-down
	// comes within a sync or two.
	if took := time.Since(idleAt); took < 1500*time.Millisecond {
		t.Errorf("scaled down %s after the pods went idle, want after the 2 s window (less the syncs before idleAt)", took)
	}
}

func conditionReason(h *autoscalingv2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) string {
	for _, c := range h.Status.Conditions {
		if c.Type == t {
			return c.Reason
		}
	}
	return ""
}
