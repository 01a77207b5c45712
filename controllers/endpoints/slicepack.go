package endpoints

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// portGroup is what a Service wants in the slices of one set of ports:
// the ports and the endpoints serving them, by endpointKey.
type portGroup struct {
	ports []discoveryv1.EndpointPort
	eps   map[string]discoveryv1.Endpoint
}

// slicePlan is what one sync writes: slices to create, the new content of
// slices to update (copies), slices to delete. Unchanged slices are in none.
type slicePlan struct {
	create, update, remove []*discoveryv1.EndpointSlice
}

// packer turns the slices a Service has into the ones it wants with few
// writes, as upstream's reconciler: an endpoint stays in the slice that
// holds it (a changed one updates only that slice), endpoints that are no
// longer wanted leave their slice, new ones go first to slices written
// anyway, then to unchanged slices with room, then to slices left empty,
// and only then to new slices (at most max endpoints each). Slices of port sets no
// longer wanted are reused before any slice is created.
type packer struct {
	max    int
	labels map[string]string
	// fresh is a new slice of the Service: labels, owner, no endpoints.
	fresh func() *discoveryv1.EndpointSlice
	spare []*discoveryv1.EndpointSlice // emptied slices, reused or deleted
	plan  slicePlan
}

// work is one slice being packed: the slice it was (nil for a new one)
// and the endpoints it will hold.
type work struct {
	from    *discoveryv1.EndpointSlice
	eps     []discoveryv1.Endpoint
	changed bool
}

// pack plans the writes from have to want; with nothing wanted one empty
// slice (no ports) stays, as upstream's placeholder.
func (p *packer) pack(want map[string]*portGroup, have []*discoveryv1.EndpointSlice) slicePlan {
	byKey := map[string][]*discoveryv1.EndpointSlice{}
	for _, s := range have {
		if k := portsKeyOf(s.Ports); want[k] != nil {
			byKey[k] = append(byKey[k], s)
		} else {
			p.spare = append(p.spare, s)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		p.group(want[k], byKey[k])
	}
	if len(want) == 0 {
		p.emit(&portGroup{}, []*work{p.reuse()})
	}
	p.plan.remove = append(p.plan.remove, p.spare...)
	return p.plan
}

// group packs the endpoints of one port set into the slices that have it.
func (p *packer) group(g *portGroup, have []*discoveryv1.EndpointSlice) {
	placed := map[string]bool{}
	var works []*work
	for _, s := range have {
		if w := p.keep(s, g, placed); w != nil {
			works = append(works, w)
		}
	}
	var rest []string
	for k := range g.eps {
		if !placed[k] {
			rest = append(rest, k)
		}
	}
	sort.Slice(rest, func(i, j int) bool { return lessEndpoint(g.eps[rest[i]], g.eps[rest[j]]) })
	rest = p.fillChanged(works, g, rest)
	rest = p.fillUnchanged(works, g, rest)
	for len(rest) > 0 {
		w := p.reuse()
		rest = p.fill(w, g, rest)
		works = append(works, w)
	}
	p.emit(g, works)
}

// keep is s with the endpoints g still wants (as g has them now), or nil
// when none is left: s is then spare.
func (p *packer) keep(s *discoveryv1.EndpointSlice, g *portGroup, placed map[string]bool) *work {
	w := &work{from: s, changed: !equality.Semantic.DeepEqual(s.Labels, p.labels) ||
		!equality.Semantic.DeepEqual(s.Ports, g.ports)}
	for _, e := range s.Endpoints {
		k := endpointKey(e)
		d, ok := g.eps[k]
		if !ok || placed[k] || len(w.eps) >= p.max {
			w.changed = true
			continue
		}
		placed[k] = true
		w.changed = w.changed || !sameEndpoint(d, e)
		w.eps = append(w.eps, d)
	}
	if len(w.eps) == 0 {
		p.spare = append(p.spare, s)
		return nil
	}
	return w
}

// fillChanged puts endpoints in slices that are written anyway.
func (p *packer) fillChanged(works []*work, g *portGroup, rest []string) []string {
	for _, w := range works {
		if w.changed {
			rest = p.fill(w, g, rest)
		}
	}
	return rest
}

// fillUnchanged puts what is left in unchanged slices with room, the
// fullest first, before any slice is made: a few more writes now, fewer
// slices to send to every node later.
func (p *packer) fillUnchanged(works []*work, g *portGroup, rest []string) []string {
	open := slices.DeleteFunc(slices.Clone(works), func(w *work) bool { return w.changed || len(w.eps) >= p.max })
	sort.SliceStable(open, func(i, j int) bool { return len(open[i].eps) > len(open[j].eps) })
	for _, w := range open {
		if len(rest) == 0 {
			break
		}
		rest = p.fill(w, g, rest)
	}
	return rest
}

// fill adds endpoints of rest to w while it has room.
func (p *packer) fill(w *work, g *portGroup, rest []string) []string {
	n := min(len(rest), p.max-len(w.eps))
	for _, k := range rest[:n] {
		w.eps = append(w.eps, g.eps[k])
	}
	w.changed = w.changed || n > 0
	return rest[n:]
}

// reuse is a spare slice emptied, or a new one.
func (p *packer) reuse() *work {
	if n := len(p.spare); n > 0 {
		s := p.spare[n-1]
		p.spare = p.spare[:n-1]
		return &work{from: s, changed: len(s.Endpoints) > 0 || len(s.Ports) > 0 ||
			!equality.Semantic.DeepEqual(s.Labels, p.labels)}
	}
	return &work{changed: true}
}

// emit adds the writes of works to the plan, endpoints in address order.
func (p *packer) emit(g *portGroup, works []*work) {
	for _, w := range works {
		if !w.changed {
			continue
		}
		sort.Slice(w.eps, func(i, j int) bool { return lessEndpoint(w.eps[i], w.eps[j]) })
		if w.from == nil {
			s := p.fresh()
			s.Endpoints, s.Ports = w.eps, g.ports
			p.plan.create = append(p.plan.create, s)
			continue
		}
		next := w.from.DeepCopy() // never change the cached object
		next.Endpoints, next.Ports, next.Labels = w.eps, g.ports, maps.Clone(p.labels)
		p.plan.update = append(p.plan.update, next)
	}
}

// sameEndpoint compares what the controller writes by hand (reflection
// over 1,000 endpoints was most of a big Service's sync); fields it never
// sets are compared in full.
func sameEndpoint(a, b discoveryv1.Endpoint) bool {
	c, d := a.Conditions, b.Conditions
	if !slices.Equal(a.Addresses, b.Addresses) || !samePtr(c.Ready, d.Ready) || !samePtr(c.Serving, d.Serving) ||
		!samePtr(c.Terminating, d.Terminating) || !samePtr(a.Hostname, b.Hostname) || !samePtr(a.NodeName, b.NodeName) ||
		!samePtr(a.TargetRef, b.TargetRef) {
		return false
	}
	return samePtr(a.Zone, b.Zone) && (a.Hints == b.Hints || equality.Semantic.DeepEqual(a.Hints, b.Hints)) &&
		(len(a.DeprecatedTopology)+len(b.DeprecatedTopology) == 0 || equality.Semantic.DeepEqual(a.DeprecatedTopology, b.DeprecatedTopology))
}

// samePtr: both nil, or both set to equal values.
func samePtr[T comparable](a, b *T) bool {
	return a == b || (a != nil && b != nil && *a == *b)
}

// endpointKey names an endpoint: its addresses and its pod, so two
// host-network pods on one node (one address) are two endpoints.
func endpointKey(e discoveryv1.Endpoint) string {
	k := strings.Join(e.Addresses, ",")
	if r := e.TargetRef; r != nil {
		k += "|" + r.Namespace + "/" + r.Name
	}
	return k
}

// lessEndpoint orders endpoints by address, then by key.
func lessEndpoint(a, b discoveryv1.Endpoint) bool {
	if aa, ba := strings.Join(a.Addresses, ","), strings.Join(b.Addresses, ","); aa != ba {
		return aa < ba
	}
	return endpointKey(a) < endpointKey(b)
}

// portsKeyOf names a set of slice ports.
func portsKeyOf(ports []discoveryv1.EndpointPort) string {
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = fmt.Sprintf("%s/%d/%s/%s", deref(p.Name), deref(p.Port), deref(p.Protocol), deref(p.AppProtocol))
	}
	return strings.Join(parts, ",")
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
