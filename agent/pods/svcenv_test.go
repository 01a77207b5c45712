package pods

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/agent/runtime"
)

func envMap(vars []runtime.EnvVar) map[string]string {
	m := map[string]string{}
	for _, v := range vars {
		m[v.Name] = v.Value
	}
	return m
}

// The service variables come first and the user's env wins over them;
// enableServiceLinks: false keeps only default/kubernetes's.
func TestServiceEnvInContainer(t *testing.T) {
	svc := func(ns, name, ip string, port int32) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: []corev1.ServicePort{{Port: port, Protocol: corev1.ProtocolTCP}}}}
	}
	var asked string
	m := &Manager{cfg: Config{Services: func(ns string) []*corev1.Service {
		asked = ns
		return []*corev1.Service{svc("default", "kubernetes", "10.43.0.1", 443), svc("default", "web", "10.43.0.9", 80)}
	}}}
	pod := testPod(corev1.RestartPolicyAlways, "app")
	ctr := &corev1.Container{Name: "app", Env: []corev1.EnvVar{{Name: "WEB_SERVICE_PORT", Value: "mine"}}}
	got, err := resolveEnv(context.Background(), (&fakeStore{}).lookup, pod, ctr, "10.0.0.5", svcEnvOf(t, m, pod))
	if err != nil {
		t.Fatal(err)
	}
	env := envMap(got)
	if asked != pod.Namespace {
		t.Fatalf("asked services of %q, want %q", asked, pod.Namespace)
	}
	for k, want := range map[string]string{"KUBERNETES_SERVICE_HOST": "10.43.0.1", "KUBERNETES_SERVICE_PORT": "443",
		"WEB_SERVICE_HOST": "10.43.0.9", "WEB_SERVICE_PORT": "mine", "WEB_PORT": "tcp://10.43.0.9:80"} {
		if env[k] != want {
			t.Errorf("%s = %q, want %q (env %v)", k, env[k], want, env)
		}
	}
	off := false
	pod.Spec.EnableServiceLinks = &off
	env = envMap(mustResolve(t, pod, &corev1.Container{Name: "app"}, svcEnvOf(t, m, pod)))
	if env["KUBERNETES_SERVICE_HOST"] != "10.43.0.1" || env["WEB_SERVICE_HOST"] != "" {
		t.Fatalf("enableServiceLinks false: env %v", env)
	}
	if e, err := (&Manager{}).serviceEnv(pod); e != nil || err != nil {
		t.Fatalf("no Services source gives %v", e)
	}
}

func svcEnvOf(t *testing.T, m *Manager, pod *corev1.Pod) []corev1.EnvVar {
	t.Helper()
	env, err := m.serviceEnv(pod)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func mustResolve(t *testing.T, pod *corev1.Pod, c *corev1.Container, svcEnv []corev1.EnvVar) []runtime.EnvVar {
	t.Helper()
	got, err := resolveEnv(context.Background(), (&fakeStore{}).lookup, pod, c, "10.0.0.5", svcEnv)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A pod started before the agent holds the Services waits (its container
// in CreateContainerConfigError with the kubelet's message) and gets its
// variables once they are there; after ServicesWait a pod starts without.
func TestServiceEnvWaitsForTheServices(t *testing.T) {
	kube := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kubernetes"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.43.0.1", Ports: []corev1.ServicePort{{Port: 443, Protocol: corev1.ProtocolTCP}}}}
	var synced bool
	var held []*corev1.Service
	configure := func(h *harness) {
		h.w.m.cfg.Services = func(string) []*corev1.Service { return held }
		h.w.m.cfg.ServicesSynced = func() bool { return synced }
	}
	h := newHarness(t, testPod(corev1.RestartPolicyAlways, "app"))
	configure(h)
	for range 2 {
		c := ctrStatus(t, h.step(), "app")
		if waitingReason(c) != "CreateContainerConfigError" || !strings.Contains(c.State.Waiting.Message, errServicesNotSynced.Error()) {
			t.Fatalf("before the Services: got %+v, want CreateContainerConfigError: %v", c.State, errServicesNotSynced)
		}
	}
	synced, held = true, []*corev1.Service{kube}
	if c := ctrStatus(t, h.step(), "app"); c.State.Running == nil {
		t.Fatalf("Services synced: got %+v, want running", c.State)
	}
	h.rt.mu.Lock()
	env := envMap(h.rt.ctrs[ContainerID("uid-1", "app", 0)].spec.Env)
	h.rt.mu.Unlock()
	if env["KUBERNETES_SERVICE_HOST"] != "10.43.0.1" {
		t.Fatalf("env after the wait: got %v, want KUBERNETES_SERVICE_HOST=10.43.0.1", env)
	}

	synced, held = false, nil
	late := newHarness(t, testPod(corev1.RestartPolicyAlways, "app"))
	configure(late)
	late.clock.Advance(late.w.m.cfg.ServicesWait)
	if c := ctrStatus(t, late.step(), "app"); c.State.Running == nil {
		t.Fatalf("after ServicesWait with no Services: got %+v, want running without them", c.State)
	}
}
