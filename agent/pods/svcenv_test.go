package pods

import (
	"context"
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
	got, err := resolveEnv(context.Background(), (&fakeStore{}).lookup, pod, ctr, "10.0.0.5", m.serviceEnv(pod))
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
	env = envMap(mustResolve(t, pod, &corev1.Container{Name: "app"}, m.serviceEnv(pod)))
	if env["KUBERNETES_SERVICE_HOST"] != "10.43.0.1" || env["WEB_SERVICE_HOST"] != "" {
		t.Fatalf("enableServiceLinks false: env %v", env)
	}
	if e := (&Manager{}).serviceEnv(pod); e != nil {
		t.Fatalf("no Services source gives %v", e)
	}
}

func mustResolve(t *testing.T, pod *corev1.Pod, c *corev1.Container, svcEnv []corev1.EnvVar) []runtime.EnvVar {
	t.Helper()
	got, err := resolveEnv(context.Background(), (&fakeStore{}).lookup, pod, c, "10.0.0.5", svcEnv)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
