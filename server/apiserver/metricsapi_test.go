package apiserver

import (
	"net/http"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

type fixedUsage map[string]ReceivedUsage

func (f fixedUsage) NodeUsage() map[string]ReceivedUsage { return f }

func TestMetricsAPI(t *testing.T) {
	e := newTestEnv(t)
	e.get("/apis/metrics.k8s.io/v1beta1/nodes").status(t, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	e.api.SetUsageSource(fixedUsage{"pi-0": {At: at, Usage: &mqtt.Usage{WindowSeconds: 10, CPU: 1_500_000_000, Memory: 512 << 20,
		Pods: []mqtt.PodUsage{{Namespace: "default", Name: "web", Containers: []mqtt.ContainerUsage{{Name: "web", CPU: 200_000_000, Memory: 20 << 20}}},
			{Namespace: "default", Name: "moved", Containers: []mqtt.ContainerUsage{{Name: "c", CPU: 1, Memory: 1}}}}}}})
	e.post("/api/v1/nodes", &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "pi-0", Labels: map[string]string{"zone": "field"}}}).must(t, http.StatusCreated)
	e.post("/api/v1/nodes", &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "pi-1"}}).must(t, http.StatusCreated)
	for name, node := range map[string]string{"web": "pi-0", "moved": "pi-1"} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": name}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
		e.post("/api/v1/namespaces/default/pods", pod).must(t, http.StatusCreated)
	}
	var nodes NodeMetricsList
	e.get("/apis/metrics.k8s.io/v1beta1/nodes").must(t, http.StatusOK).into(t, &nodes)
	if len(nodes.Items) != 1 || nodes.Kind != "NodeMetricsList" || nodes.Items[0].Name != "pi-0" {
		t.Fatalf("node metrics: got %+v, want pi-0 only (pi-1 reported nothing)", nodes)
	}
	n := nodes.Items[0]
	if cpu, mem := n.Usage.Cpu(), n.Usage.Memory(); cpu.MilliValue() != 1500 || mem.Value() != 512<<20 || n.Window.Duration != 10*time.Second || !n.Timestamp.Time.Equal(at) {
		t.Fatalf("pi-0: got cpu %s memory %s window %s at %s", cpu, mem, n.Window, n.Timestamp)
	}
	e.get("/apis/metrics.k8s.io/v1beta1/nodes?labelSelector=zone%3Dother").must(t, http.StatusOK).into(t, &nodes)
	if len(nodes.Items) != 0 {
		t.Fatalf("label selector zone=other: got %d nodes, want 0", len(nodes.Items))
	}
	var pods PodMetricsList
	e.do(req{method: "GET", path: "/apis/metrics.k8s.io/v1beta1/pods", token: "viewer-token"}).must(t, http.StatusOK).into(t, &pods)
	if len(pods.Items) != 1 || pods.Items[0].Name != "web" || len(pods.Items[0].Containers) != 1 {
		t.Fatalf("pod metrics: got %+v, want web only (moved is on another node than the report)", pods)
	}
	var pm PodMetrics
	e.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web").must(t, http.StatusOK).into(t, &pm)
	if c := pm.Containers[0]; c.Name != "web" || c.Usage.Cpu().MilliValue() != 200 || pm.Labels["app"] != "web" {
		t.Fatalf("web: got %+v", pm)
	}
	e.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/moved").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	e.get("/apis/metrics.k8s.io/v1beta1/namespaces/other/pods?labelSelector=app").must(t, http.StatusOK)
	e.get("/apis/metrics.k8s.io/v1beta1/nodes?labelSelector=%3D%3D").status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	e.do(req{method: "DELETE", path: "/apis/metrics.k8s.io/v1beta1/nodes/pi-0"}).status(t, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed)
	e.get("/apis/metrics.k8s.io/v1beta1/services").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	e.do(req{method: "GET", path: "/apis/metrics.k8s.io/v1beta1/nodes", token: "nobody"}).status(t, http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
	var rl metav1.APIResourceList
	e.get("/apis/metrics.k8s.io/v1beta1").must(t, http.StatusOK).into(t, &rl)
	if len(rl.APIResources) != 2 || rl.APIResources[1].Kind != "PodMetrics" || !rl.APIResources[1].Namespaced {
		t.Fatalf("discovery: got %+v", rl)
	}
}
