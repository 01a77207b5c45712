package mqtt

import (
	"strings"
	"testing"
)

func TestDecodeHeartbeatUsageErrors(t *testing.T) {
	u := func(m map[string]any) map[string]any { return m["usage"].(map[string]any) }
	pod := func(m map[string]any) map[string]any { return u(m)["pods"].([]any)[0].(map[string]any) }
	ctr := func(m map[string]any) map[string]any { return pod(m)["c"].([]any)[0].(map[string]any) }
	cases := []struct {
		name string
		f    func(m map[string]any)
		want string
	}{
		{"window", func(m map[string]any) { u(m)["window"] = 0 }, "usage.window: got 0, want 1 to 3600"},
		{"node cpu", func(m map[string]any) { u(m)["cpu"] = 2e12 }, "usage.cpu: got 2000000000000 nanocores"},
		{"negative", func(m map[string]any) { u(m)["mem"] = -1 }, "malformed JSON"},
		{"unknown", func(m map[string]any) { u(m)["swap"] = 1 }, `unknown field "usage.swap"`},
		{"ns", func(m map[string]any) { pod(m)["ns"] = "Default" }, `usage.pods[0].ns: "Default"`},
		{"name", func(m map[string]any) { pod(m)["name"] = "" }, `usage.pods[0].name: ""`},
		{"no containers", func(m map[string]any) { pod(m)["c"] = []any{} }, "usage.pods[0].c: got 0 containers"},
		{"container name", func(m map[string]any) { ctr(m)["n"] = "A" }, `usage.pods[0].c[0].n: "A"`},
		{"container twice", func(m map[string]any) { pod(m)["c"] = []any{ctr(m), ctr(m)} }, "usage.pods[0].c[1].n: web is reported twice"},
		{"container mem", func(m map[string]any) { ctr(m)["mem"] = float64(1 << 50) }, "usage.pods[0].c[0].mem: got 1125899906842624 bytes"},
		{"pod twice", func(m map[string]any) { u(m)["pods"] = []any{pod(m), pod(m)} }, "usage.pods[1]: default/web is reported twice"},
		{"too many pods", func(m map[string]any) {
			pods := make([]any, MaxUsagePods+1)
			for i := range pods {
				pods[i] = pod(m)
			}
			u(m)["pods"] = pods
		}, "usage.pods: got 513, want at most 512"},
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

// A node with 110 pods of two containers keeps its heartbeat well under
// the limit.
func TestHeartbeatUsageSize(t *testing.T) {
	h := sampleHeartbeat()
	h.Usage.Pods = nil
	for i := range 110 {
		h.Usage.Pods = append(h.Usage.Pods, PodUsage{Namespace: "default", Name: "web-7d9f8c6b5d-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26),
			Containers: []ContainerUsage{{Name: "web", CPU: 123_456_789, Memory: 123 << 20}, {Name: "sidecar", CPU: 1_234_567, Memory: 12 << 20}}})
	}
	data, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > MaxHeartbeatBytes/4 {
		t.Errorf("heartbeat with 110 pods' usage: got %d bytes, want at most %d", len(data), MaxHeartbeatBytes/4)
	}
	t.Logf("heartbeat with 110 pods' usage: %d bytes", len(data))
}
