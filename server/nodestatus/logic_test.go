package nodestatus

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

func TestAdaptiveGracePeriod(t *testing.T) {
	cases := map[int]time.Duration{0: 40 * time.Second, 100: 40 * time.Second, 101: 40*time.Second + 20*time.Millisecond,
		2000: 78 * time.Second, 10000: 238 * time.Second}
	for n, want := range cases {
		if got := AdaptiveGracePeriod(n); got != want {
			t.Errorf("AdaptiveGracePeriod(%d): got %s, want %s", n, got, want)
		}
	}
	for _, n := range []int{10, 100, 1000, 100000} {
		if perSec := 2 * float64(n) / AdaptiveGracePeriod(n).Seconds(); perSec >= 100 {
			t.Errorf("worst-case lease writes at %d nodes: got %.1f/s, want < 100/s", n, perSec)
		}
	}
}

func TestLapsed(t *testing.T) {
	t0 := time.Unix(1000, 0)
	hb := &mqtt.Heartbeat{IntervalSeconds: 30}
	cases := []struct {
		name string
		st   nodeState
		at   time.Duration
		want bool
	}{
		{"within grace", nodeState{lastSeen: t0}, 39 * time.Second, false},
		{"past grace", nodeState{lastSeen: t0}, 41 * time.Second, true},
		{"slow agent gets three intervals", nodeState{lastSeen: t0, latest: hb}, 80 * time.Second, false},
		{"slow agent past three intervals", nodeState{lastSeen: t0, latest: hb}, 91 * time.Second, true},
		{"offline, not confirmed", nodeState{lastSeen: t0, offlineAt: t0}, 10 * time.Second, false},
		{"offline, confirmed", nodeState{lastSeen: t0, offlineAt: t0}, 16 * time.Second, true},
	}
	for _, tc := range cases {
		if got := tc.st.lapsed(t0.Add(tc.at), 40*time.Second, 15*time.Second); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func report() *mqtt.NodeReport {
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("4Gi")}
	return &mqtt.NodeReport{Capacity: res, Allocatable: res.DeepCopy(),
		Conditions: []mqtt.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "AgentReady", Message: "a"}},
		NodeInfo:   corev1.NodeSystemInfo{Architecture: "arm64", OperatingSystem: "linux"}}
}

func TestViewDiffers(t *testing.T) {
	base := reportView(report())
	cases := []struct {
		name string
		f    func(r *mqtt.NodeReport)
		want bool
	}{
		{"same", func(*mqtt.NodeReport) {}, false},
		{"message only", func(r *mqtt.NodeReport) { r.Conditions[0].Message = "b" }, false},
		{"temperature only", func(r *mqtt.NodeReport) { x := 80.0; r.TemperatureCelsius = &x }, false},
		{"memory -4%", func(r *mqtt.NodeReport) { r.Allocatable[corev1.ResourceMemory] = resource.MustParse("3932Mi") }, false},
		{"memory -6%", func(r *mqtt.NodeReport) { r.Allocatable[corev1.ResourceMemory] = resource.MustParse("3850Mi") }, true},
		{"resource added", func(r *mqtt.NodeReport) { r.Capacity[corev1.ResourcePods] = resource.MustParse("110") }, true},
		{"ready flips", func(r *mqtt.NodeReport) { r.Conditions[0].Status = corev1.ConditionFalse }, true},
		{"reason changes", func(r *mqtt.NodeReport) { r.Conditions[0].Reason = "RuntimeDown" }, true},
		{"new condition", func(r *mqtt.NodeReport) {
			r.Conditions = append(r.Conditions, mqtt.NodeCondition{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse})
		}, true},
		{"kernel", func(r *mqtt.NodeReport) { r.NodeInfo.KernelVersion = "6.7" }, true},
		{"address", func(r *mqtt.NodeReport) {
			r.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.9"}}
		}, true},
		{"image", func(r *mqtt.NodeReport) { r.Images = []corev1.ContainerImage{{Names: []string{"x"}}} }, true},
	}
	for _, tc := range cases {
		r := report()
		tc.f(r)
		if got := base.differs(reportView(r), 0.05); got != tc.want {
			t.Errorf("%s: differs got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestComposeStatusKeepsTransitionTimes(t *testing.T) {
	t1 := metav1.NewTime(time.Unix(1000, 0))
	t2 := metav1.NewTime(time.Unix(2000, 0))
	hb := &mqtt.Heartbeat{Status: *report()}
	first := composeStatus(&corev1.NodeStatus{}, hb, false, t1)
	same := composeStatus(first, hb, false, t2)
	if got := findCondition(same.Conditions, corev1.NodeReady).LastTransitionTime; !got.Equal(&t1) {
		t.Errorf("Ready lastTransitionTime with no change: got %v, want %v", got, t1)
	}
	lost := composeStatus(first, hb, true, t2)
	c := findCondition(lost.Conditions, corev1.NodeReady)
	if c.Status != corev1.ConditionUnknown || !c.LastTransitionTime.Equal(&t2) || c.Reason != ReasonNodeStatusUnknown {
		t.Errorf("lost: got %+v, want Unknown since %v with reason %s", c, t2, ReasonNodeStatusUnknown)
	}
	if findCondition(lost.Conditions, corev1.NodeDiskPressure) != nil {
		t.Error("lost: a condition the agent never reported was added")
	}
}

func TestMergePodStatus(t *testing.T) {
	stored := &corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBestEffort,
		Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}}
	got := mergePodStatus(stored, &corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}})
	if got.Phase != corev1.PodRunning || got.QOSClass != corev1.PodQOSBestEffort || len(got.Conditions) != 2 {
		t.Errorf("merge: got %+v, want Running, BestEffort, Ready and PodScheduled", got)
	}
	if got := mergePodStatus(&corev1.PodStatus{Phase: corev1.PodSucceeded}, &corev1.PodStatus{Phase: corev1.PodRunning}); got != nil {
		t.Errorf("Succeeded -> Running: got %+v, want refused", got)
	}
}

// TestMergePodStatusCopies: the merge is the reported status, then the
// stored conditions the node does not report, a copy sharing nothing
// with the report (nil and empty condition lists kept as they were).
func TestMergePodStatusCopies(t *testing.T) {
	yes := true
	scheduled := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}
	ready := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue}
	for _, tc := range []struct {
		stored, reported []corev1.PodCondition
		want             []corev1.PodCondition
	}{
		{nil, nil, nil},
		{nil, []corev1.PodCondition{}, []corev1.PodCondition{}},
		{[]corev1.PodCondition{scheduled}, nil, []corev1.PodCondition{scheduled}},
		{[]corev1.PodCondition{scheduled, ready}, []corev1.PodCondition{ready}, []corev1.PodCondition{ready, scheduled}},
		{[]corev1.PodCondition{ready}, []corev1.PodCondition{ready}, []corev1.PodCondition{ready}},
	} {
		reported := &corev1.PodStatus{Phase: corev1.PodRunning, Conditions: tc.reported,
			ContainerStatuses: []corev1.ContainerStatus{{Name: "c", Started: &yes}}}
		got := mergePodStatus(&corev1.PodStatus{Conditions: tc.stored}, reported)
		if (got.Conditions == nil) != (tc.want == nil) || len(got.Conditions) != len(tc.want) {
			t.Fatalf("stored %v, reported %v: got conditions %#v, want %#v", tc.stored, tc.reported, got.Conditions, tc.want)
		}
		for i := range tc.want {
			if got.Conditions[i] != tc.want[i] {
				t.Errorf("stored %v, reported %v: condition %d: got %v, want %v", tc.stored, tc.reported, i, got.Conditions[i], tc.want[i])
			}
		}
		if len(tc.reported) > 0 && &got.Conditions[0] == &reported.Conditions[0] ||
			got.ContainerStatuses[0].Started == reported.ContainerStatuses[0].Started {
			t.Error("the merge shares memory with the report")
		}
	}
}
