package nodeinfo

import (
	"bytes"
	"context"
	"errors"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/version"
)

// realContainerd starts a private containerd (failing when it is not
// installed) with one busybox image imported.
func realContainerd(t *testing.T) *runtime.Containerd {
	t.Helper()
	ctx := context.Background()
	d, err := runtimetest.StartContainerd(ctx, t.TempDir())
	if err != nil {
		t.Fatalf("start containerd: %v", err)
	}
	t.Cleanup(func() { d.Stop() })
	rt, err := runtime.NewContainerd(ctx, runtime.ContainerdConfig{Address: d.Address, Namespace: "nodeinfo-test"})
	if err != nil {
		t.Fatalf("NewContainerd: %v", err)
	}
	t.Cleanup(func() { rt.Close() })
	img, err := runtimetest.Busybox("docker.io/library/busybox:nodeinfo", nil)
	if err != nil {
		t.Fatal(err)
	}
	tar, err := runtimetest.OCIArchive(img)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.ImportImages(ctx, bytes.NewReader(tar)); err != nil {
		t.Fatalf("import: %v", err)
	}
	return rt
}

// TestCollectThisMachine collects the real figures of the machine running
// the tests, with a real containerd.
func TestCollectThisMachine(t *testing.T) {
	rt := realContainerd(t)
	reserved, _ := ParseReserved("cpu=250m,memory=256Mi")
	taints, _ := ParseTaints([]string{"example.com/edge=true:NoSchedule"})
	n, err := Collect(context.Background(), Config{
		NodeName: "test-node", DataDir: t.TempDir() + "/not/yet", SystemReserved: reserved,
		Labels: map[string]string{"example.com/zone": "ci"}, Taints: taints, Runtime: rt,
	})
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}
	capa, alloc := n.Status.Capacity, n.Status.Allocatable
	if c := capa[corev1.ResourceCPU]; c.Value() < 1 || c.Value() < int64(goruntime.NumCPU()) {
		t.Errorf("cpu capacity: got %s, want >= 1 and >= NumCPU %d", c.String(), goruntime.NumCPU())
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		if q := capa[r]; q.Value() <= 0 {
			t.Errorf("%s capacity: got %s, want > 0", r, q.String())
		}
	}
	if p := capa[corev1.ResourcePods]; p.Value() != DefaultMaxPods {
		t.Errorf("pods: got %s, want %d", p.String(), DefaultMaxPods)
	}
	c, a := capa[corev1.ResourceMemory], alloc[corev1.ResourceMemory]
	if c.Value()-a.Value() != 256<<20 {
		t.Errorf("memory allocatable: got capacity %s - allocatable %s, want 256Mi between", c.String(), a.String())
	}
	t.Logf("capacity %v, allocatable %v, nodeInfo %+v, addresses %v, conditions %+v", capa, alloc, n.Status.NodeInfo, n.Status.Addresses, n.Status.Conditions)
	checkNodeInfo(t, n.Status.NodeInfo)
	checkLabels(t, n.Labels)
	checkConditions(t, n.Status.Conditions, corev1.ConditionTrue)
	if len(n.Status.Images) != 1 || n.Status.Images[0].Names[0] != "docker.io/library/busybox:nodeinfo" || n.Status.Images[0].SizeBytes <= 0 {
		t.Errorf("images: got %+v, want the imported busybox with a size", n.Status.Images)
	}
	want := "linux/" + goruntime.GOARCH
	if ps := n.ImagePlatforms["docker.io/library/busybox:nodeinfo"]; len(ps) != 1 || ps[0] != want {
		t.Errorf("image platforms: got %v, want [%s] for busybox", n.ImagePlatforms, want)
	}
	checkHeartbeat(t, n)
}

func checkNodeInfo(t *testing.T, info corev1.NodeSystemInfo) {
	t.Helper()
	if arch, _, _ := strings.Cut(info.Architecture, "/"); arch != goruntime.GOARCH {
		t.Errorf("architecture: got %q, want %s", info.Architecture, goruntime.GOARCH)
	}
	if !strings.HasPrefix(info.ContainerRuntimeVersion, "containerd://1.") {
		t.Errorf("containerRuntimeVersion: got %q, want containerd://1.x", info.ContainerRuntimeVersion)
	}
	if info.KernelVersion == "" || info.OSImage == "" || info.OperatingSystem != "linux" || info.KubeletVersion != version.KubeletVersion() {
		t.Errorf("nodeInfo: got %+v, want kernel, OS image, linux and %s", info, version.KubeletVersion())
	}
	if info.BootID == "" {
		t.Errorf("bootID: got empty, want /proc/sys/kernel/random/boot_id")
	}
}

func checkLabels(t *testing.T, labels map[string]string) {
	t.Helper()
	want := map[string]string{
		"kubernetes.io/arch": goruntime.GOARCH, "kubernetes.io/os": "linux",
		"kubernetes.io/hostname": "test-node", "example.com/zone": "ci",
	}
	for k, v := range want {
		if labels[k] != v {
			t.Errorf("label %s: got %q, want %q", k, labels[k], v)
		}
	}
}

func checkConditions(t *testing.T, conds []corev1.NodeCondition, ready corev1.ConditionStatus) {
	t.Helper()
	want := []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure}
	if len(conds) != len(want) {
		t.Fatalf("conditions: got %d, want %d", len(conds), len(want))
	}
	for i, c := range conds {
		if c.Type != want[i] {
			t.Errorf("condition %d: got %s, want %s", i, c.Type, want[i])
		}
		if i > 0 && c.Status == corev1.ConditionUnknown {
			t.Errorf("%s: got Unknown (%s), want a judgement", c.Type, c.Message)
		}
	}
	if conds[0].Status != ready {
		t.Errorf("Ready: got %s (%s), want %s", conds[0].Status, conds[0].Message, ready)
	}
}

// checkHeartbeat encodes the collection as the MQTT status message and
// decodes it with the server's strict decoder.
func checkHeartbeat(t *testing.T, n *Node) {
	t.Helper()
	data, err := n.Heartbeat(1, 10*time.Second).Encode()
	if err != nil {
		t.Fatalf("encode heartbeat: %v", err)
	}
	hb, err := mqtt.DecodeHeartbeat(data)
	if err != nil {
		t.Fatalf("decode heartbeat: %v", err)
	}
	if hb.Node != "test-node" || hb.IntervalSeconds != 10 || len(hb.Taints) != 1 || hb.Labels["kubernetes.io/os"] != "linux" {
		t.Errorf("heartbeat: got node %q interval %d taints %v labels %v", hb.Node, hb.IntervalSeconds, hb.Taints, hb.Labels)
	}
	if c, ok := hb.Status.Condition(corev1.NodeReady); !ok || c.Status != corev1.ConditionTrue {
		t.Errorf("heartbeat Ready: got %+v, want True", c)
	}
}

type downRuntime struct{}

func (downRuntime) Version(context.Context) (string, error) {
	return "", errors.New("dial unix /run/containerd/containerd.sock: connection refused")
}
func (downRuntime) ListImages(context.Context) ([]runtime.Image, error) { return nil, nil }

// TestCollectFakeRoot reads a Raspberry Pi 4's files, with the runtime down.
func TestCollectFakeRoot(t *testing.T) {
	n, err := Collect(context.Background(), Config{
		NodeName: "pi-4", DataDir: t.TempDir(), Root: "testdata/pi4", Runtime: downRuntime{}, MaxPods: 20,
		NodeIP: "192.168.1.23", NodeExternalIP: "203.0.113.9",
		Annotations: map[string]string{mqtt.AnnotationVXLANMAC: "02:00:00:00:00:01"},
	})
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}
	checkConditions(t, n.Status.Conditions, corev1.ConditionFalse)
	if msg := n.Status.Conditions[0].Message; !strings.Contains(msg, "connection refused") {
		t.Errorf("Ready message: got %q, want the runtime's error", msg)
	}
	info := n.Status.NodeInfo
	if info.OSImage != "Debian GNU/Linux 12 (bookworm)" || info.MachineID != "3f2a9c0d5e6b4f718293a4b5c6d7e8f9" ||
		info.BootID != "5b1f0c2e-8d3a-4c6b-9e7f-0a1b2c3d4e5f" || info.ContainerRuntimeVersion != "" {
		t.Errorf("nodeInfo: got %+v", info)
	}
	if n.BoardModel != "Raspberry Pi 4 Model B Rev 1.4" || n.Labels[LabelBoard] != "Raspberry-Pi-4-Model-B-Rev-1.4" {
		t.Errorf("board: got %q, label %q", n.BoardModel, n.Labels[LabelBoard])
	}
	if n.TemperatureCelsius == nil || *n.TemperatureCelsius != 51.54 {
		t.Errorf("temperature: got %v, want 51.54", n.TemperatureCelsius)
	}
	if a := n.Status.Addresses; len(a) == 0 || a[0] != (corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "192.168.1.23"}) {
		t.Errorf("addresses: got %v, want InternalIP 192.168.1.23 first", a)
	}
	if a := n.Status.Addresses; len(a) < 2 || a[1] != (corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.9"}) {
		t.Errorf("addresses: got %v, want ExternalIP 203.0.113.9 second", a)
	}
	if got := n.Heartbeat(1, time.Second).Annotations[mqtt.AnnotationVXLANMAC]; got != "02:00:00:00:00:01" {
		t.Errorf("heartbeat annotation %s: got %q, want the configured MAC", mqtt.AnnotationVXLANMAC, got)
	}
	if p := n.Status.Capacity[corev1.ResourcePods]; p.Value() != 20 {
		t.Errorf("pods: got %s, want 20", p.String())
	}
}

func TestCollectBadConfig(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{NodeName: "n"}, "--data-dir"},
		{Config{NodeName: "Bad_Name", DataDir: "/"}, "--node-name"},
		{Config{NodeName: "n", DataDir: "/", MaxPods: -1}, "--max-pods"},
		{Config{NodeName: "n", DataDir: "/", NodeIP: "10.0.0.300"}, "--node-ip"},
		{Config{NodeName: "n", DataDir: "/", NodeExternalIP: "not-an-ip"}, "--node-external-ip"},
	}
	for _, tt := range tests {
		if _, err := Collect(context.Background(), tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Collect(%+v): got %v, want an error naming %s", tt.cfg, err, tt.want)
		}
	}
}
