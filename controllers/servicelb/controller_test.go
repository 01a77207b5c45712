package servicelb

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

const waitFor = 10 * time.Second

type harness struct {
	*controllertest.Env
	writes *counting
}

// counting counts the status writes the controller makes through the
// real Client.
type counting struct {
	controllers.Client
	n atomic.Int64
}

func (c *counting) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	c.n.Add(1)
	return c.Client.UpdateStatus(ctx, obj)
}

func start(t *testing.T) *harness {
	t.Helper()
	e := controllertest.New(t)
	w := &counting{Client: e.Client}
	c := New(controllers.Deps{Client: w, Cache: e.Cache, Log: e.Log})
	e.Start()
	e.Go(func(ctx context.Context) { c.Run(ctx, 1) })
	return &harness{e, w}
}

// node creates a Ready node with an InternalIP and, when external is not
// empty, an ExternalIP.
func (h *harness) node(name, internal, external string, labels map[string]string) *corev1.Node {
	n := controllertest.MustCreate(h.Env, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}})
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: internal}}
	if external != "" {
		n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: external})
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	out, err := h.Client.UpdateStatus(h.Ctx, n)
	if err != nil {
		h.T.Fatalf("node status: %v", err)
	}
	return out.(*corev1.Node)
}

func (h *harness) service(name string, edit func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Port: 80}}}}
	if edit != nil {
		edit(s)
	}
	return controllertest.MustCreate(h.Env, s)
}

// slice writes the EndpointSlice of service svc with one endpoint per
// "node" (ready) or "node!" (not ready).
func (h *harness) slice(svc string, eps ...string) {
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: svc + "-x", Namespace: "default",
		Labels: map[string]string{discoveryv1.LabelServiceName: svc}}, AddressType: discoveryv1.AddressTypeIPv4}
	for i, e := range eps {
		node, notReady := strings.CutSuffix(e, "!")
		ready := !notReady
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{fmt.Sprintf("10.42.0.%d", i+1)},
			NodeName: &node, Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
	}
	cur, err := h.Client.Get(h.Ctx, endpointSlices, "default", s.Name)
	if err == nil {
		s.ResourceVersion = cur.GetResourceVersion()
		_, err = h.Client.Update(h.Ctx, s)
	} else {
		_, err = h.Client.Create(h.Ctx, s)
	}
	if err != nil {
		h.T.Fatalf("slice %s: %v", s.Name, err)
	}
}

// waitIngress waits until the ingress IPs of Service name join to want.
func (h *harness) waitIngress(name, want string) *corev1.Service {
	h.T.Helper()
	var svc *corev1.Service
	h.Eventually(waitFor, func() error {
		svc = controllertest.MustGet[*corev1.Service](h.Env, services, "default", name)
		if got := strings.Join(ingressIPs(svc), ","); got != want {
			return fmt.Errorf("service %s ingress: got %q, want %q", name, got, want)
		}
		return nil
	})
	return svc
}

func (h *harness) edit(name string, fn func(*corev1.Service)) {
	h.T.Helper()
	svc := controllertest.MustGet[*corev1.Service](h.Env, services, "default", name)
	fn(svc)
	if _, err := h.Client.Update(h.Ctx, svc); err != nil {
		h.T.Fatalf("update service %s: %v", name, err)
	}
}
