package agent

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/mqtt"
)

func writeProc(t *testing.T, root, stat string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, "proc"), 0o755); err != nil {
		t.Fatal(err)
	}
	meminfo := "MemTotal:        4000000 kB\nMemFree:          100000 kB\nMemAvailable:    3000000 kB\n"
	for name, text := range map[string]string{"stat": stat, "meminfo": meminfo} {
		if err := os.WriteFile(filepath.Join(root, "proc", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestUsageSamplerRates(t *testing.T) {
	root := t.TempDir()
	t0 := time.Unix(1000, 0)
	now := t0
	var ctrs []runtime.ContainerUsage
	s := &usageSampler{root: root, logger: slog.New(slog.NewTextHandler(io.Discard, nil)), userHertz: 100,
		now:      func() time.Time { return now },
		counters: func(context.Context) ([]runtime.ContainerUsage, error) { return ctrs, nil },
		podName: func(uid types.UID) (string, string, bool) {
			return "default", "burn-" + string(uid), uid != "gone"
		},
		prevCtrs: map[string]runtime.ContainerUsage{}}
	writeProc(t, root, "cpu  100 0 100 5000 10 0 0 0 0 0\ncpu0 1 2 3 4\n")
	ctrs = []runtime.ContainerUsage{{ID: "a", PodUID: "1", Name: "yes", CPUNanos: 1e9, WorkingSet: 5 << 20, At: t0},
		{ID: "g", PodUID: "gone", Name: "x", CPUNanos: 0, At: t0}}
	if u := s.sample(context.Background()); u != nil {
		t.Fatalf("first sample: got %+v, want none (no rate yet)", u)
	}
	// 10 s later: 1,000 more busy ticks (10 s of CPU: one core), the
	// container used 2 s of CPU (200m); a new container has no rate yet.
	now = t0.Add(10 * time.Second)
	writeProc(t, root, "cpu  700 0 500 9000 10 0 0 0 0 0\n")
	ctrs = []runtime.ContainerUsage{{ID: "a", PodUID: "1", Name: "yes", CPUNanos: 3e9, WorkingSet: 6 << 20, At: now},
		{ID: "b", PodUID: "1", Name: "new", CPUNanos: 1e9, At: now}, {ID: "g", PodUID: "gone", Name: "x", CPUNanos: 9, At: now}}
	u := s.sample(context.Background())
	want := mqtt.Usage{WindowSeconds: 10, CPU: 1e9, Memory: 1000000 << 10,
		Pods: []mqtt.PodUsage{{Namespace: "default", Name: "burn-1", Containers: []mqtt.ContainerUsage{{Name: "yes", CPU: 2e8, Memory: 6 << 20}}}}}
	if u == nil || u.WindowSeconds != want.WindowSeconds || u.CPU != want.CPU || u.Memory != want.Memory ||
		len(u.Pods) != 1 || len(u.Pods[0].Containers) != 1 || u.Pods[0].Containers[0] != want.Pods[0].Containers[0] {
		t.Fatalf("second sample: got %+v, want %+v", u, want)
	}
}

func TestUsageSamplerBadProc(t *testing.T) {
	root := t.TempDir()
	writeProc(t, root, "intr 1 2 3\n")
	s := &usageSampler{root: root, userHertz: 100, now: time.Now}
	if _, err := s.measure(context.Background()); err == nil {
		t.Fatal("a /proc/stat without the cpu line: got no error")
	}
}
