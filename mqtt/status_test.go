package mqtt

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func sampleHeartbeat() *Heartbeat {
	temp := 48.5
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("110")}
	return &Heartbeat{Node: "pi-0", Seq: 7, IntervalSeconds: 10,
		Labels: map[string]string{"kubernetes.io/arch": "arm64", "kubernetes.io/os": "linux"},
		Taints: []corev1.Taint{{Key: "edge", Value: "true", Effect: corev1.TaintEffectNoSchedule}},
		Status: NodeReport{Capacity: res, Allocatable: res.DeepCopy(),
			Conditions: []NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "AgentReady"},
				{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}},
			Addresses:          []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.5"}},
			NodeInfo:           corev1.NodeSystemInfo{Architecture: "arm64", OperatingSystem: "linux", KernelVersion: "6.6.31"},
			Images:             []corev1.ContainerImage{{Names: []string{"docker.io/library/nginx:1.27"}, SizeBytes: 70 << 20}},
			TemperatureCelsius: &temp},
		Usage: &Usage{WindowSeconds: 10, CPU: 850_000_000, Memory: 1 << 30,
			Pods: []PodUsage{{Namespace: "default", Name: "web", Containers: []ContainerUsage{
				{Name: "web", CPU: 200_000_000, Memory: 40 << 20}, {Name: "sidecar", CPU: 1_000_000, Memory: 8 << 20}}}}}}
}

func samplePodStatus() *PodStatusReport {
	now := metav1.Now().Rfc3339Copy()
	return &PodStatusReport{Node: "pi-0", Pods: []PodStatusEntry{{Namespace: "default", Name: "web", UID: "u-1",
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &now,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Ready: true, Image: "nginx",
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}}}}}
}

func TestHeartbeatRoundTrip(t *testing.T) {
	in := sampleHeartbeat()
	data, err := in.Encode()
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeHeartbeat(data)
	if err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	again, _ := out.Encode()
	if string(again) != string(data) {
		t.Errorf("round trip: got %s, want %s", again, data)
	}
	if c, ok := out.Status.Condition(corev1.NodeReady); !ok || c.Status != corev1.ConditionTrue {
		t.Errorf("Ready condition: got %+v, %v, want True", c, ok)
	}
}

func TestPodStatusRoundTrip(t *testing.T) {
	in := samplePodStatus()
	data, err := in.Encode()
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodePodStatus(data)
	if err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	if !equality.Semantic.DeepEqual(out, in) {
		t.Errorf("round trip: got %+v, want %+v", out, in)
	}
}

// mutate encodes the sample heartbeat as a generic map, applies f, and
// returns the JSON.
func mutate(t testing.TB, v any, f func(m map[string]any)) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, _ := json.Marshal(m)
	return string(out)
}

func TestDecodeHeartbeatErrors(t *testing.T) {
	st := func(m map[string]any) map[string]any { return m["status"].(map[string]any) }
	cases := []struct {
		name string
		f    func(m map[string]any)
		want string
	}{
		{"unknown field", func(m map[string]any) { m["extra"] = 1 }, `unknown field "extra"`},
		{"no node", func(m map[string]any) { delete(m, "node") }, "node: missing"},
		{"bad node", func(m map[string]any) { m["node"] = "Pi_0" }, `node: "Pi_0"`},
		{"seq zero", func(m map[string]any) { m["seq"] = 0 }, "seq: got 0, want > 0"},
		{"interval", func(m map[string]any) { m["intervalSeconds"] = 0 }, "intervalSeconds: got 0, want 1 to 3600"},
		{"label key", func(m map[string]any) { m["labels"] = map[string]any{"a b": "x"} }, `labels["a b"]: key`},
		{"taint effect", func(m map[string]any) { m["taints"] = []any{map[string]any{"key": "k", "effect": "Maybe"}} }, `taints[0].effect: got "Maybe"`},
		{"no cpu", func(m map[string]any) { delete(st(m)["capacity"].(map[string]any), "cpu") }, "status.capacity[cpu]: missing"},
		{"bad quantity", func(m map[string]any) { st(m)["capacity"].(map[string]any)["cpu"] = "four" }, "malformed JSON"},
		{"negative", func(m map[string]any) { st(m)["allocatable"].(map[string]any)["memory"] = "-1" }, "status.allocatable[memory]: got -1, want >= 0"},
		{"over capacity", func(m map[string]any) { st(m)["allocatable"].(map[string]any)["cpu"] = "5" }, "status.allocatable[cpu]: got 5, more than capacity 4"},
		{"no ready", func(m map[string]any) { st(m)["conditions"] = []any{} }, "status.conditions: Ready is missing"},
		{"cond type", func(m map[string]any) { st(m)["conditions"] = []any{map[string]any{"type": "Happy", "status": "True"}} }, `status.conditions[0].type: got "Happy"`},
		{"cond twice", func(m map[string]any) {
			c := map[string]any{"type": "Ready", "status": "True"}
			st(m)["conditions"] = []any{c, c}
		}, "status.conditions[1].type: Ready is reported twice"},
		{"cond status", func(m map[string]any) { st(m)["conditions"] = []any{map[string]any{"type": "Ready", "status": "yes"}} }, `status.conditions[0].status: got "yes"`},
		{"cond time", func(m map[string]any) {
			st(m)["conditions"] = []any{map[string]any{"type": "Ready", "status": "True", "lastHeartbeatTime": "2024-01-01T00:00:00Z"}}
		}, `unknown field "status.conditions[0].lastHeartbeatTime"`},
		{"address type", func(m map[string]any) { st(m)["addresses"] = []any{map[string]any{"type": "Home", "address": "x"}} }, `status.addresses[0].type: got "Home"`},
		{"no arch", func(m map[string]any) { delete(st(m)["nodeInfo"].(map[string]any), "architecture") }, "status.nodeInfo.architecture: missing"},
		{"image names", func(m map[string]any) { st(m)["images"] = []any{map[string]any{"sizeBytes": 1}} }, "status.images[0].names: missing"},
		{"temperature", func(m map[string]any) { st(m)["temperatureCelsius"] = 900 }, "status.temperatureCelsius: got 900, want -100 to 200"},
		{"platform form", func(m map[string]any) { st(m)["imagePlatforms"] = map[string]any{"busybox:1": []any{"arm64"}} }, `imagePlatforms[busybox:1]: "arm64" is not os/arch[/variant]`},
		{"platform case", func(m map[string]any) { st(m)["imagePlatforms"] = map[string]any{"busybox:1": []any{"Linux/ARM64"}} }, `"Linux/ARM64" is not os/arch[/variant]`},
		{"no platforms", func(m map[string]any) { st(m)["imagePlatforms"] = map[string]any{"busybox:1": []any{}} }, "imagePlatforms[busybox:1]: got 0 platforms"},
		{"empty image ref", func(m map[string]any) { st(m)["imagePlatforms"] = map[string]any{"": []any{"linux/arm64"}} }, "imagePlatforms: image reference of 0 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			payload := mutate(t, sampleHeartbeat(), tc.f)
			_, err := DecodeHeartbeat([]byte(payload))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("decode %s: got error %v, want one containing %q", payload, err, tc.want)
			}
		})
	}
}

func TestDecodeHeartbeatTooLarge(t *testing.T) {
	big := make([]byte, MaxHeartbeatBytes+1)
	_, err := DecodeHeartbeat(big)
	if err == nil || !strings.Contains(err.Error(), "limit 65536") {
		t.Errorf("got %v, want the size limit named", err)
	}
}

func TestDecodePodStatusErrors(t *testing.T) {
	pod := func(m map[string]any) map[string]any { return m["pods"].([]any)[0].(map[string]any) }
	cases := []struct {
		name string
		f    func(m map[string]any)
		want string
	}{
		{"no pods", func(m map[string]any) { m["pods"] = []any{} }, "pods: got 0, want 1 to 256"},
		{"node", func(m map[string]any) { m["node"] = "" }, "node: missing"},
		{"namespace", func(m map[string]any) { pod(m)["namespace"] = "Default" }, `pods[0].namespace: "Default"`},
		{"name", func(m map[string]any) { pod(m)["name"] = "" }, `pods[0].name: ""`},
		{"uid", func(m map[string]any) { delete(pod(m), "uid") }, "pods[0].uid: got 0 bytes"},
		{"phase", func(m map[string]any) { pod(m)["status"].(map[string]any)["phase"] = "Dancing" }, `pods[0].status.phase: got "Dancing"`},
		{"twice", func(m map[string]any) { m["pods"] = []any{pod(m), pod(m)} }, "pods[1]: default/web is reported twice"},
		{"unknown status field", func(m map[string]any) { pod(m)["status"].(map[string]any)["mood"] = "ok" }, `unknown field "pods[0].status.mood"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			payload := mutate(t, samplePodStatus(), tc.f)
			_, err := DecodePodStatus([]byte(payload))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("decode %s: got error %v, want one containing %q", payload, err, tc.want)
			}
		})
	}
}
