package publish

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// scopeWorld is a small random cluster whose objects are changed at random;
// it checks that what the scope sends each node, applied in order, is what a
// scope built from scratch on the final objects says the node needs.
type scopeWorld struct {
	t    *testing.T
	rnd  *rand.Rand
	s    *policyScope
	rev  int64
	objs map[mqtt.ObjectRef]string
	held map[string]map[mqtt.ObjectRef]string // node -> what it holds
}

var policyTemplates = []string{
	`"podSelector":{"matchLabels":{"app":"a"}},"ingress":[{"from":[{"podSelector":{"matchLabels":{"role":"client"}}}]}]`,
	`"podSelector":{},"ingress":[{"from":[{"namespaceSelector":{"matchLabels":{"team":"x"}}}]}]`,
	`"podSelector":{"matchLabels":{"role":"server"}},"ingress":[{"from":[{"namespaceSelector":{},"podSelector":{"matchLabels":{"app":"b"}}}]}]`,
	`"podSelector":{},"policyTypes":["Egress"],"egress":[{"ports":[{"port":"http"}]}]`,
	`"podSelector":{"matchLabels":{"app":"b"}},"ingress":[{"from":[{"ipBlock":{"cidr":"10.0.0.0/8"}}]}]`,
}

func (w *scopeWorld) step() {
	r := w.rnd
	ns := fmt.Sprintf("ns%d", r.Intn(3))
	switch k := r.Intn(10); {
	case k < 5:
		ref := podRef(ns, fmt.Sprintf("p%d", r.Intn(12)))
		if r.Intn(5) == 0 {
			w.del(ref)
			return
		}
		ip := ""
		if r.Intn(6) > 0 {
			ip = fmt.Sprintf("10.42.%d.%d", r.Intn(4), r.Intn(3)+2)
		}
		lbl := map[string]string{"role": []string{"client", "server"}[r.Intn(2)], "app": []string{"a", "b"}[r.Intn(2)]}
		w.put(ref, podJSON(ns, ref.Name, fmt.Sprintf("n%d", r.Intn(4)), ip, lbl))
	case k < 8:
		ref := policyRef(ns, fmt.Sprintf("np%d", r.Intn(4)))
		if r.Intn(4) == 0 {
			w.del(ref)
			return
		}
		w.put(ref, fmt.Sprintf(`{"metadata":{"namespace":%q,"name":%q},"spec":{%s}}`, ns, ref.Name, policyTemplates[r.Intn(len(policyTemplates))]))
	default:
		w.put(namespaceRef(ns), nsJSON(ns, map[string]string{"team": []string{"x", "y"}[r.Intn(2)]}))
	}
}

func (w *scopeWorld) put(ref mqtt.ObjectRef, obj string) {
	w.objs[ref] = obj
	w.rev++
	w.feed(ref, &datastore.Event{Type: datastore.EventUpdate, Revision: w.rev,
		KV: &datastore.KeyValue{Key: ref.String(), Value: []byte(obj), ModRevision: w.rev}})
}

func (w *scopeWorld) del(ref mqtt.ObjectRef) {
	if _, ok := w.objs[ref]; !ok {
		return
	}
	delete(w.objs, ref)
	w.rev++
	w.feed(ref, &datastore.Event{Type: datastore.EventDelete, Revision: w.rev, KV: &datastore.KeyValue{Key: ref.String()}})
}

func (w *scopeWorld) feed(ref mqtt.ObjectRef, ev *datastore.Event) {
	w.t.Helper()
	out, err := w.s.apply(ref, ev)
	if err != nil {
		w.t.Fatal(err)
	}
	for i, node := range out.order {
		changes := out.lists[i]
		if w.held[node] == nil {
			w.held[node] = map[mqtt.ObjectRef]string{}
		}
		for _, c := range changes {
			if c.typ == mqtt.Deleted {
				if _, ok := w.held[node][c.ref]; !ok {
					w.t.Fatalf("rev %d: %s told to delete %s it does not hold", w.rev, node, c.ref)
				}
				delete(w.held[node], c.ref)
				continue
			}
			w.held[node][c.ref] = string(c.kv.Value)
		}
	}
}

// fresh builds a scope from the current objects alone.
func (w *scopeWorld) fresh() *policyScope {
	s := newPolicyScope()
	refs := make([]mqtt.ObjectRef, 0, len(w.objs))
	for ref := range w.objs {
		refs = append(refs, ref)
	}
	order := map[string]int{"namespaces": 0, mqtt.ResourcePods: 1, "networkpolicies": 2}
	sort.Slice(refs, func(i, j int) bool {
		if order[refs[i].Resource] != order[refs[j].Resource] {
			return order[refs[i].Resource] < order[refs[j].Resource]
		}
		return refs[i].String() < refs[j].String()
	})
	for i, ref := range refs {
		ev := &datastore.Event{Type: datastore.EventCreate, Revision: int64(i + 1),
			KV: &datastore.KeyValue{Key: ref.String(), Value: []byte(w.objs[ref])}}
		if _, err := s.apply(ref, ev); err != nil {
			w.t.Fatal(err)
		}
	}
	return s
}

func (w *scopeWorld) check(step int) {
	w.t.Helper()
	f := w.fresh()
	for i := 0; i < 4; i++ {
		node := fmt.Sprintf("n%d", i)
		var want, got []string
		for _, c := range f.nodeView(node) {
			want = append(want, c.ref.String()+" "+string(c.kv.Value))
		}
		for ref, v := range w.held[node] {
			got = append(got, ref.String()+" "+v)
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			w.t.Fatalf("step %d, %s holds\n  %s\nwant\n  %s", step, node, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
}

// TestPolicyScopeMatchesFromScratch drives random changes through the scope.
func TestPolicyScopeMatchesFromScratch(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		w := &scopeWorld{t: t, rnd: rand.New(rand.NewSource(seed)), s: newPolicyScope(),
			objs: map[mqtt.ObjectRef]string{}, held: map[string]map[mqtt.ObjectRef]string{}}
		for i := 1; i <= 300; i++ {
			w.step()
			if i%25 == 0 {
				w.check(i)
			}
		}
	}
}
