package nodeipam

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

const waitFor = 20 * time.Second

type harness struct {
	*controllertest.Env
	events *controllers.Informer
}

func newHarness(t *testing.T) *harness {
	env := controllertest.New(t)
	return &harness{Env: env, events: env.Cache.Informer(controllertest.Resource("", "events"))}
}

// run starts a controller on the harness's store until the returned stop
// is called (or the test ends); the cache must have been started.
func (h *harness) run(cfg Config) (stop func()) {
	h.T.Helper()
	c, err := New(controllers.Deps{Cache: h.Cache, Client: h.Client, Log: h.Log}, cfg)
	if err != nil {
		h.T.Fatalf("New: %v", err)
	}
	return h.Go(func(ctx context.Context) { c.Run(ctx, 2) })
}

func (h *harness) createNode(name string) {
	h.T.Helper()
	controllertest.MustCreate(h.Env, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
}

func (h *harness) node(name string) *corev1.Node {
	h.T.Helper()
	return controllertest.MustGet[*corev1.Node](h.Env, nodesRes, "", name)
}

func (h *harness) deleteNode(name string) {
	h.T.Helper()
	if err := h.Client.Delete(h.Ctx, nodesRes, "", name, controllers.DeleteOptions{}); err != nil {
		h.T.Fatalf("delete node %s: %v", name, err)
	}
}

// waitCIDR waits for the node's range and checks spec.podCIDRs agrees.
func (h *harness) waitCIDR(name string) string {
	h.T.Helper()
	var got string
	h.Eventually(waitFor, func() error {
		n := h.node(name)
		if n.Spec.PodCIDR == "" {
			return fmt.Errorf("node %s: podCIDR empty", name)
		}
		if len(n.Spec.PodCIDRs) != 1 || n.Spec.PodCIDRs[0] != n.Spec.PodCIDR {
			return fmt.Errorf("node %s: podCIDRs %v, want [%s]", name, n.Spec.PodCIDRs, n.Spec.PodCIDR)
		}
		got = n.Spec.PodCIDR
		return nil
	})
	return got
}

func TestNodesGetDistinctRangesInTheClusterCIDR(t *testing.T) {
	h := newHarness(t)
	h.Start()
	h.run(Config{ClusterCIDR: netip.MustParsePrefix("10.99.0.0/16"), NodeMaskSize: 24, NetworkBackend: "host-gw"})
	cluster := netip.MustParsePrefix("10.99.0.0/16")
	seen := map[string]string{}
	for i := range 5 {
		name := fmt.Sprintf("n%d", i)
		h.createNode(name)
		cidr := h.waitCIDR(name)
		p := netip.MustParsePrefix(cidr)
		if p.Bits() != 24 || !cluster.Contains(p.Addr()) {
			t.Errorf("node %s: got podCIDR %s, want a /24 of %s", name, cidr, cluster)
		}
		if other, dup := seen[cidr]; dup {
			t.Errorf("nodes %s and %s: both got %s", other, name, cidr)
		}
		seen[cidr] = name
		if got := h.node(name).Annotations[NetworkBackendAnnotation]; got != "host-gw" {
			t.Errorf("node %s: annotation %s = %q, want host-gw", name, NetworkBackendAnnotation, got)
		}
		if got := h.node(name).Annotations[ClusterCIDRAnnotation]; got != "10.99.0.0/16" {
			t.Errorf("node %s: annotation %s = %q, want 10.99.0.0/16", name, ClusterCIDRAnnotation, got)
		}
	}
}

// A controller started again (a server restart) keeps every range and
// hands a new Node one nobody holds; a deleted Node's range is free again.
func TestRangesSurviveRestartAndAreReleasedOnDelete(t *testing.T) {
	h := newHarness(t)
	h.Start()
	cfg := Config{ClusterCIDR: netip.MustParsePrefix("10.42.0.0/23")}
	stop := h.run(cfg)
	h.createNode("a")
	h.createNode("b")
	a, b := h.waitCIDR("a"), h.waitCIDR("b")
	stop()

	h.run(cfg)
	h.createNode("c")
	h.Eventually(waitFor, func() error {
		n := h.node("c")
		if n.Spec.PodCIDR != "" {
			return nil // fails below
		}
		if c := findCondition(n, corev1.NodeNetworkUnavailable); c == nil || c.Reason != ReasonNoCIDRAvailable {
			return fmt.Errorf("node c: conditions %+v, want NetworkUnavailable/%s", n.Status.Conditions, ReasonNoCIDRAvailable)
		}
		return nil
	})
	if got := h.node("c").Spec.PodCIDR; got != "" {
		t.Fatalf("node c with a /23 cut in two, both held before the restart: got podCIDR %s, want none", got)
	}
	if got := h.node("a").Spec.PodCIDR; got != a {
		t.Fatalf("node a after restart: got %s, want %s", got, a)
	}
	h.deleteNode("b")
	if got := h.waitCIDR("c"); got != b {
		t.Fatalf("node c after b was deleted: got %s, want b's %s", got, b)
	}
	h.Eventually(waitFor, func() error {
		c := findCondition(h.node("c"), corev1.NodeNetworkUnavailable)
		if c == nil || c.Status != corev1.ConditionFalse {
			return fmt.Errorf("node c NetworkUnavailable: got %+v, want False", c)
		}
		return nil
	})
}

func TestFullRangeGivesEventAndCondition(t *testing.T) {
	h := newHarness(t)
	h.Start()
	h.run(Config{ClusterCIDR: netip.MustParsePrefix("10.42.0.0/24"), NodeMaskSize: 24})
	h.createNode("first")
	h.waitCIDR("first")
	h.createNode("second")
	h.Eventually(waitFor, func() error {
		c := findCondition(h.node("second"), corev1.NodeNetworkUnavailable)
		if c == nil || c.Status != corev1.ConditionTrue || c.Reason != ReasonNoCIDRAvailable {
			return fmt.Errorf("node second NetworkUnavailable: got %+v, want True/%s", c, ReasonNoCIDRAvailable)
		}
		return nil
	})
	h.Eventually(waitFor, func() error {
		for _, o := range h.events.List("", nil) {
			ev := o.(*corev1.Event)
			if ev.InvolvedObject.Name == "second" && ev.Reason == ReasonCIDRNotAvailable && ev.Type == corev1.EventTypeWarning {
				return nil
			}
		}
		return fmt.Errorf("no %s Warning event about node second", ReasonCIDRNotAvailable)
	})
}

func TestNewRejectsBadConfig(t *testing.T) {
	h := newHarness(t)
	d := controllers.Deps{Cache: h.Cache, Client: h.Client, Log: h.Log}
	if _, err := New(d, Config{NetworkBackend: "flannel"}); err == nil {
		t.Error("New with backend flannel: got nil error, want one naming --network-backend")
	}
	if _, err := New(d, Config{NodeMaskSize: 12}); err == nil {
		t.Error("New with mask 12 of a /16: got nil error, want one naming --node-cidr-mask-size")
	}
}

// The ranges stored Nodes hold are taken before any Node is given one,
// whatever order the workers see the Nodes in.
func TestRebuildTakesStoredRanges(t *testing.T) {
	h := newHarness(t)
	for i, cidr := range []string{"10.42.0.0/24", "10.42.2.0/24"} {
		controllertest.MustCreate(h.Env, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("old%d", i)},
			Spec: corev1.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}}})
	}
	c, err := New(controllers.Deps{Cache: h.Cache, Client: h.Client, Log: h.Log},
		Config{ClusterCIDR: netip.MustParsePrefix("10.42.0.0/22")})
	if err != nil {
		t.Fatal(err)
	}
	h.Start()
	c.rebuild()
	var got []string
	for range 2 {
		p, err := c.alloc.allocate()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.String())
	}
	if got[0] != "10.42.1.0/24" || got[1] != "10.42.3.0/24" {
		t.Fatalf("allocations after rebuild: got %v, want [10.42.1.0/24 10.42.3.0/24]", got)
	}
}
