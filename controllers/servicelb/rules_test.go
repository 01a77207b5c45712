package servicelb

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/controllers/controllertest"
)

// Without labelled nodes: the nodes with a ready endpoint, ExternalIP
// preferred, sorted as addresses (10.x before 203.x), updated as
// endpoints become ready or leave.
func TestServingNodes(t *testing.T) {
	h := start(t)
	h.node("n1", "10.0.0.11", "", nil)
	h.node("n2", "10.0.0.2", "203.0.113.2", nil)
	h.node("n3", "10.0.0.3", "", nil)
	h.service("web", nil)
	h.waitIngress("web", "")
	h.slice("web", "n3", "n1", "n2!", "n3")
	h.waitIngress("web", "10.0.0.3,10.0.0.11")
	h.slice("web", "n3", "n1", "n2")
	h.waitIngress("web", "10.0.0.3,10.0.0.11,203.0.113.2")
	h.slice("web", "n2")
	h.waitIngress("web", "203.0.113.2")
}

// With a node labelled enablelb=true: only labelled, Ready nodes, whether
// or not they run a pod; with externalTrafficPolicy Local only those that
// do. Removing the last label brings back the serving nodes.
func TestLabelledNodes(t *testing.T) {
	h := start(t)
	h.node("n1", "10.0.0.1", "", nil)
	h.node("n2", "10.0.0.2", "", map[string]string{LabelEnableLB: "true"})
	h.node("n3", "10.0.0.3", "", map[string]string{LabelEnableLB: "false"})
	h.service("web", nil)
	h.service("local", func(s *corev1.Service) {
		s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	})
	h.slice("web", "n1", "n3")
	h.slice("local", "n1")
	h.waitIngress("web", "10.0.0.2")
	h.waitIngress("local", "")
	h.slice("local", "n1", "n2")
	h.waitIngress("local", "10.0.0.2")

	n2 := controllertest.MustGet[*corev1.Node](h.Env, nodes, "", "n2")
	delete(n2.Labels, LabelEnableLB)
	if _, err := h.Client.Update(h.Ctx, n2); err != nil {
		t.Fatal(err)
	}
	h.waitIngress("web", "10.0.0.1,10.0.0.3")
	h.waitIngress("local", "10.0.0.1,10.0.0.2")
}

// A labelled node that is not Ready gives no address.
func TestLabelledNodeNotReady(t *testing.T) {
	h := start(t)
	h.node("n1", "10.0.0.1", "", map[string]string{LabelEnableLB: "true"})
	n2 := h.node("n2", "10.0.0.2", "", map[string]string{LabelEnableLB: "true"})
	h.service("web", nil)
	h.waitIngress("web", "10.0.0.1,10.0.0.2")
	n2.Status.Conditions[0].Status = corev1.ConditionUnknown
	if _, err := h.Client.UpdateStatus(h.Ctx, n2); err != nil {
		t.Fatal(err)
	}
	h.waitIngress("web", "10.0.0.1")
}

// A type change away from LoadBalancer clears the ingress; a Service with
// a loadBalancerClass belongs to another controller and is left alone.
func TestTypeChangeAndClass(t *testing.T) {
	h := start(t)
	h.node("n1", "10.0.0.1", "", nil)
	class := "example.com/metallb"
	h.service("other", func(s *corev1.Service) { s.Spec.LoadBalancerClass = &class })
	h.service("web", nil)
	h.slice("web", "n1")
	h.slice("other", "n1")
	h.waitIngress("web", "10.0.0.1")
	h.edit("web", func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeClusterIP })
	h.waitIngress("web", "")
	h.edit("web", func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeLoadBalancer })
	h.waitIngress("web", "10.0.0.1")
	// "web" settled after "other" was queued: other is still untouched.
	if got := ingressIPs(controllertest.MustGet[*corev1.Service](h.Env, services, "default", "other")); len(got) != 0 {
		t.Fatalf("service with a loadBalancerClass got ingress %v", got)
	}
}

// Nothing is written when nothing changed: a node heartbeat and a slice
// rewrite with the same nodes make no status write.
func TestWritesOnlyOnChange(t *testing.T) {
	h := start(t)
	n1 := h.node("n1", "10.0.0.1", "", nil)
	h.service("web", nil)
	h.slice("web", "n1")
	h.waitIngress("web", "10.0.0.1")
	before := h.writes.n.Load()
	n1.Status.Conditions[0].LastHeartbeatTime.Time = n1.Status.Conditions[0].LastHeartbeatTime.Add(1e9)
	if _, err := h.Client.UpdateStatus(h.Ctx, n1); err != nil {
		t.Fatal(err)
	}
	h.slice("web", "n1", "n1")
	h.service("sentinel", nil) // queued after the changes above
	h.slice("sentinel", "n1")
	h.waitIngress("sentinel", "10.0.0.1")
	if got := h.writes.n.Load() - before; got != 1 {
		t.Fatalf("%d status writes, want 1 (the sentinel's)", got)
	}
}
