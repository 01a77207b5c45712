package endpoints

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

const waitFor = 10 * time.Second

type harness struct{ *controllertest.Env }

func start(t *testing.T) *harness {
	t.Helper()
	e := controllertest.New(t)
	d := controllers.Deps{Client: e.Client, Cache: e.Cache, Log: e.Log}
	c, sc := New(d), NewSlices(d)
	e.FinishPodDeletions() // the nodes stop deleted pods at once
	e.Start()
	ctx, cancel := context.WithCancel(e.Ctx)
	done := make(chan struct{}, 2)
	go func() { c.Run(ctx, 2); done <- struct{}{} }()
	go func() { sc.Run(ctx, 2); done <- struct{}{} }()
	t.Cleanup(func() { cancel(); <-done; <-done })
	return &harness{e}
}

func (h *harness) service(name string, sel map[string]string, ports ...corev1.ServicePort) *corev1.Service {
	return controllertest.MustCreate(h.Env, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
		Labels: map[string]string{"team": "a"}}, Spec: corev1.ServiceSpec{Selector: sel, Ports: ports}})
}

// pod creates a pod labelled app=web with a named port and gives it ip,
// ready or not.
func (h *harness) pod(name, ip string, ready bool) {
	p := controllertest.MustCreate(h.Env, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
		Labels: map[string]string{"app": "web"}}, Spec: corev1.PodSpec{NodeName: "pi-1", Containers: []corev1.Container{{
		Name: "c", Image: "nginx", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}})
	h.setStatus(p, ip, ready)
}

func (h *harness) setStatus(p *corev1.Pod, ip string, ready bool) {
	h.T.Helper()
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	p.Status.Phase, p.Status.PodIP = corev1.PodRunning, ip
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
	if _, err := h.Client.UpdateStatus(h.Ctx, p); err != nil {
		h.T.Fatalf("pod status: %v", err)
	}
}

// waitEndpoints waits until the Endpoints of name print as want
// ("ready|notReady|ports"), or are absent when want is "".
func (h *harness) waitEndpoints(name, want string) {
	h.T.Helper()
	h.Eventually(waitFor, func() error {
		got, err := h.Client.Get(h.Ctx, endpoints, "default", name)
		if apierrors.IsNotFound(err) && want == "" {
			return nil
		}
		if err != nil {
			return err
		}
		if s := summary(got.(*corev1.Endpoints)); s != want {
			return fmt.Errorf("endpoints %s: got %q, want %q", name, s, want)
		}
		return nil
	})
}

func summary(e *corev1.Endpoints) string {
	out := ""
	for _, ss := range e.Subsets {
		for _, a := range ss.Addresses {
			out += a.IP + " "
		}
		out += "|"
		for _, a := range ss.NotReadyAddresses {
			out += a.IP + " "
		}
		out += "|"
		for _, p := range ss.Ports {
			out += fmt.Sprintf("%s:%d/%s ", p.Name, p.Port, p.Protocol)
		}
		out += ";"
	}
	return out
}

func TestEndpointsFollowPods(t *testing.T) {
	h := start(t)
	h.service("web", map[string]string{"app": "web"},
		corev1.ServicePort{Name: "http", Port: 80, TargetPort: intstr.FromString("http")},
		corev1.ServicePort{Name: "metrics", Port: 9090, TargetPort: intstr.FromInt32(9100)})
	h.waitEndpoints("web", "")
	h.pod("a", "10.42.0.5", true)
	h.pod("b", "10.42.0.6", false)
	h.waitEndpoints("web", "10.42.0.5 |10.42.0.6 |http:8080/TCP metrics:9100/TCP ;")
	b := controllertest.MustGet[*corev1.Pod](h.Env, pods, "default", "b")
	h.setStatus(b, "10.42.0.6", true)
	h.waitEndpoints("web", "10.42.0.5 10.42.0.6 ||http:8080/TCP metrics:9100/TCP ;")
	ep := controllertest.MustGet[*corev1.Endpoints](h.Env, endpoints, "default", "web")
	a := ep.Subsets[0].Addresses[0]
	if a.TargetRef == nil || a.TargetRef.Name != "a" || a.NodeName == nil || *a.NodeName != "pi-1" || ep.Labels["team"] != "a" {
		t.Fatalf("got address %+v labels %v, want pod a on pi-1 and the Service's labels", a, ep.Labels)
	}
	if err := h.Client.Delete(h.Ctx, pods, "default", "a", controllers.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.waitEndpoints("web", "10.42.0.6 ||http:8080/TCP metrics:9100/TCP ;")
	if err := h.Client.Delete(h.Ctx, endpoints, "default", "web", controllers.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.waitEndpoints("web", "10.42.0.6 ||http:8080/TCP metrics:9100/TCP ;") // written again
	if err := h.Client.Delete(h.Ctx, services, "default", "web", controllers.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.waitEndpoints("web", "")
}

func TestEndpointsOfServicesWithoutSelectorAreLeftAlone(t *testing.T) {
	h := start(t)
	h.service("ext", nil, corev1.ServicePort{Port: 5432})
	mine := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "ext", Namespace: "default"},
		Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "192.168.1.10"}},
			Ports: []corev1.EndpointPort{{Port: 5432}}}}}
	controllertest.MustCreate(h.Env, mine)
	h.pod("a", "10.42.0.5", true)
	h.service("other", map[string]string{"app": "web"}, corev1.ServicePort{Port: 80, TargetPort: intstr.FromString("nope")})
	h.Eventually(waitFor, func() error { // created, empty: the pod does not serve the named port
		got, err := h.Client.Get(h.Ctx, endpoints, "default", "other")
		if err == nil && len(got.(*corev1.Endpoints).Subsets) > 0 {
			t.Fatalf("got %s, want no subsets", summary(got.(*corev1.Endpoints)))
		}
		return err
	})
	h.waitEndpoints("ext", "192.168.1.10 ||:5432/TCP ;")
}

func TestSelectorChangesAndHeadless(t *testing.T) {
	h := start(t)
	h.pod("a", "10.42.0.5", false)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"}, Spec: corev1.ServiceSpec{
		ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{"app": "web"}, PublishNotReadyAddresses: true}}
	svc = controllertest.MustCreate(h.Env, svc)
	h.waitEndpoints("db", "10.42.0.5 ||;") // not ready, but published; no ports
	if ep := controllertest.MustGet[*corev1.Endpoints](h.Env, endpoints, "default", "db"); ep.Labels[LabelHeadless] != "" {
		t.Fatalf("got labels %v, want %s", ep.Labels, LabelHeadless)
	} else if _, ok := ep.Labels[LabelHeadless]; !ok {
		t.Fatalf("got labels %v, want %s", ep.Labels, LabelHeadless)
	}
	svc.Spec.Selector = map[string]string{"app": "db"}
	if _, err := h.Client.Update(h.Ctx, svc); err != nil {
		t.Fatal(err)
	}
	h.Eventually(waitFor, func() error {
		ep := controllertest.MustGet[*corev1.Endpoints](h.Env, endpoints, "default", "db")
		if len(ep.Subsets) > 0 {
			return fmt.Errorf("got %s after the selector moved away, want none", summary(ep))
		}
		return nil
	})
}
