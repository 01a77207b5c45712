package endpoints

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// packTest is a Service's slices as the controller would see them,
// written by applying plans the way the API does (names given at create).
type packTest struct {
	t     *testing.T
	have  []*discoveryv1.EndpointSlice
	named int
}

var packLabels = map[string]string{discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: SliceComponent}

func packPorts(port int32) []discoveryv1.EndpointPort {
	name, proto := "http", corev1.ProtocolTCP
	return []discoveryv1.EndpointPort{{Name: &name, Port: &port, Protocol: &proto}}
}

func packEndpoint(ip string, ready bool) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready},
		TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "pod-" + ip}}
}

// want is one port group of the endpoints ips (ready).
func want(port int32, ips ...string) map[string]*portGroup {
	g := &portGroup{ports: packPorts(port), eps: map[string]discoveryv1.Endpoint{}}
	for _, ip := range ips {
		e := packEndpoint(ip, true)
		g.eps[endpointKey(e)] = e
	}
	return map[string]*portGroup{portsKeyOf(g.ports): g}
}

func ips(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("10.42.%d.%d", (from+i)/200, (from+i)%200+10)
	}
	return out
}

// sync plans from the current slices to w, applies the plan and returns
// how many writes it took (creates, updates, deletes).
func (pt *packTest) sync(w map[string]*portGroup) (c, u, d int) {
	pt.t.Helper()
	pk := &packer{max: maxSliceEndpoints, labels: packLabels, fresh: func() *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Labels: packLabels}}
	}}
	plan := pk.pack(w, pt.have)
	byName := map[string]int{}
	for i, s := range pt.have {
		byName[s.Name] = i
	}
	for _, s := range plan.update {
		pt.have[byName[s.Name]] = s
	}
	for _, s := range plan.create {
		pt.named++
		s.Name = fmt.Sprintf("web-%03d", pt.named)
		pt.have = append(pt.have, s)
	}
	for _, s := range plan.remove {
		pt.have = slices.DeleteFunc(pt.have, func(h *discoveryv1.EndpointSlice) bool { return h.Name == s.Name })
	}
	pt.check(w)
	return len(plan.create), len(plan.update), len(plan.remove)
}

// check: every wanted endpoint exactly once, as wanted, in a slice of its
// ports; no slice over the maximum; one empty slice when nothing is wanted.
func (pt *packTest) check(w map[string]*portGroup) {
	pt.t.Helper()
	seen := map[string]bool{}
	for _, s := range pt.have {
		g := w[portsKeyOf(s.Ports)]
		if len(s.Endpoints) > maxSliceEndpoints || (len(s.Endpoints) > 0 && g == nil) {
			pt.t.Fatalf("slice %s: %d endpoints of ports %q, want at most %d of a wanted port set", s.Name, len(s.Endpoints), portsKeyOf(s.Ports), maxSliceEndpoints)
		}
		for _, e := range s.Endpoints {
			k := endpointKey(e)
			if d, ok := g.eps[k]; seen[k] || !ok || *d.Conditions.Ready != *e.Conditions.Ready {
				pt.t.Fatalf("slice %s: endpoint %s twice, unwanted or stale", s.Name, k)
			}
			seen[k] = true
		}
	}
	total := 0
	for _, g := range w {
		total += len(g.eps)
	}
	if len(seen) != total || (total == 0 && len(pt.have) != 1) {
		pt.t.Fatalf("got %d endpoints in %d slices, want %d (one empty slice for none)", len(seen), len(pt.have), total)
	}
}

func TestPackMinimalWrites(t *testing.T) {
	pt := &packTest{t: t}
	all := ips(0, 250)
	if c, u, d := pt.sync(want(80, all...)); c != 3 || u+d != 0 {
		t.Fatalf("250 endpoints from nothing: got %d/%d/%d creates/updates/deletes, want 3/0/0", c, u, d)
	}
	if c, u, d := pt.sync(want(80, all...)); c+u+d != 0 {
		t.Fatalf("no change: got %d writes, want none", c+u+d)
	}
	w := want(80, all...)
	flip := packEndpoint(all[120], false)
	w[portsKeyOf(packPorts(80))].eps[endpointKey(flip)] = flip
	if c, u, d := pt.sync(w); c != 0 || u != 1 || d != 0 {
		t.Fatalf("one endpoint not ready: got %d/%d/%d, want 0/1/0 (only its slice)", c, u, d)
	}
	if c, u, d := pt.sync(want(80, all...)); c != 0 || u != 1 || d != 0 {
		t.Fatalf("ready again: got %d/%d/%d, want 0/1/0", c, u, d)
	}
	replaced := append(slices.Clone(all[:10]), all[11:]...)
	replaced = append(replaced, "10.0.0.1") // sorts first: must not shift the others
	if c, u, d := pt.sync(want(80, replaced...)); c != 0 || u != 1 || d != 0 {
		t.Fatalf("one pod replaced by one with a new address: got %d/%d/%d, want 0/1/0", c, u, d)
	}
	more := append(slices.Clone(replaced), ips(1000, 30)...)
	if c, u, d := pt.sync(want(80, more...)); c != 0 || u != 1 || d != 0 {
		t.Fatalf("30 new endpoints, a slice with 50 free: got %d/%d/%d, want 0/1/0 (no new slice)", c, u, d)
	}
	full := append(slices.Clone(more), ips(2000, 21)...)
	if c, u, d := pt.sync(want(80, full...)); c != 1 || u != 1 || d != 0 {
		t.Fatalf("21 new endpoints, 20 free: got %d/%d/%d, want 0/1/0 then a new slice", c, u, d)
	}
}

func TestPackPortsChangeAndEmpty(t *testing.T) {
	pt := &packTest{t: t}
	pt.sync(want(80, ips(0, 150)...))
	if c, u, d := pt.sync(want(8080, ips(0, 150)...)); c != 0 || u != 2 || d != 0 {
		t.Fatalf("target port changed: got %d/%d/%d, want 0/2/0 (slices reused)", c, u, d)
	}
	if c, u, d := pt.sync(map[string]*portGroup{}); c != 0 || u != 1 || d != 1 {
		t.Fatalf("no endpoints left: got %d/%d/%d, want 0/1/1 (one empty slice kept)", c, u, d)
	}
	if c, u, d := pt.sync(map[string]*portGroup{}); c+u+d != 0 {
		t.Fatalf("still none: got %d writes, want none", c+u+d)
	}
	if c, u, d := pt.sync(want(80, "10.42.0.5")); c != 0 || u != 1 || d != 0 {
		t.Fatalf("first endpoint: got %d/%d/%d, want 0/1/0 (the empty slice filled)", c, u, d)
	}
}

// Random sequences of adds, removals and readiness flips keep every
// endpoint exactly once (check), with writes bounded by what changed.
func TestPackRandomChurn(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 16))
	pt := &packTest{t: t}
	live := map[string]bool{}
	next := 0
	for step := 0; step < 300; step++ {
		changes := 1 + rng.IntN(5)
		for range changes {
			switch k := rng.IntN(3); {
			case k == 0 || len(live) == 0:
				live[ips(next, 1)[0]] = rng.IntN(2) == 0
				next++
			case k == 1:
				delete(live, anyKey(rng, live))
			default:
				ip := anyKey(rng, live)
				live[ip] = !live[ip]
			}
		}
		w := want(80)
		g := w[portsKeyOf(packPorts(80))]
		for ip, ready := range live {
			e := packEndpoint(ip, ready)
			g.eps[endpointKey(e)] = e
		}
		if len(live) == 0 {
			w = map[string]*portGroup{}
		}
		if c, u, d := pt.sync(w); c+u+d > changes+1 {
			t.Fatalf("step %d: %d changes took %d writes, want at most %d", step, changes, c+u+d, changes+1)
		}
	}
}

func anyKey(rng *rand.Rand, m map[string]bool) string {
	keys := slices.Sorted(maps.Keys(m))
	return keys[rng.IntN(len(keys))]
}
