package publish

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// scopeHarness feeds a policyScope stored objects and prints what each
// node is sent, one "node TYPE resource/ns/name" line per change.
type scopeHarness struct {
	t   *testing.T
	s   *policyScope
	rev int64
}

func newScopeHarness(t *testing.T) *scopeHarness {
	return &scopeHarness{t: t, s: newPolicyScope()}
}

func (h *scopeHarness) put(ref mqtt.ObjectRef, obj string) []string {
	h.t.Helper()
	h.rev++
	ev := &datastore.Event{Type: datastore.EventUpdate, Revision: h.rev,
		KV: &datastore.KeyValue{Key: ref.String(), Value: []byte(obj), ModRevision: h.rev}}
	return h.apply(ref, ev)
}

func (h *scopeHarness) del(ref mqtt.ObjectRef) []string {
	h.t.Helper()
	h.rev++
	return h.apply(ref, &datastore.Event{Type: datastore.EventDelete, Revision: h.rev, KV: &datastore.KeyValue{Key: ref.String()}})
}

func (h *scopeHarness) apply(ref mqtt.ObjectRef, ev *datastore.Event) []string {
	h.t.Helper()
	out, err := h.s.apply(ref, ev)
	if err != nil {
		h.t.Fatalf("apply %s: %v", ref, err)
	}
	var lines []string
	for _, node := range out.order {
		for _, c := range out.of(node) {
			lines = append(lines, node+" "+string(c.typ)+" "+c.ref.String())
			if c.typ != mqtt.Deleted && c.ref.Resource == mqtt.ResourcePeerPods {
				if _, err := mqtt.DecodePeerPod(c.kv.Value); err != nil {
					h.t.Errorf("%s: summary does not decode: %v", c.ref, err)
				}
			}
		}
	}
	sort.Strings(lines)
	return lines
}

func podRef(ns, name string) mqtt.ObjectRef {
	return mqtt.ObjectRef{Resource: mqtt.ResourcePods, Namespace: ns, Name: name}
}

func policyRef(ns, name string) mqtt.ObjectRef {
	return mqtt.ObjectRef{Resource: "networkpolicies", Namespace: ns, Name: name}
}

func podJSON(ns, name, node, ip string, labels map[string]string) string {
	l, _ := json.Marshal(labels)
	return fmt.Sprintf(`{"metadata":{"namespace":%q,"name":%q,"labels":%s},"spec":{"nodeName":%q,"containers":[{"name":"c","ports":[{"name":"http","containerPort":8080}]}]},"status":{"podIP":%q}}`,
		ns, name, l, node, ip)
}

func nsJSON(name string, labels map[string]string) string {
	l, _ := json.Marshal(labels)
	return fmt.Sprintf(`{"metadata":{"name":%q,"labels":%s}}`, name, l)
}

func want(t *testing.T, step string, got []string, lines ...string) {
	t.Helper()
	sort.Strings(lines)
	if strings.Join(got, "\n") != strings.Join(lines, "\n") {
		t.Errorf("%s:\ngot\n  %s\nwant\n  %s", step, strings.Join(got, "\n  "), strings.Join(lines, "\n  "))
	}
}

func TestPolicyScope(t *testing.T) {
	h := newScopeHarness(t)
	want(t, "namespace without policies", h.put(namespaceRef("prod"), nsJSON("prod", map[string]string{"team": "a"})))
	h.put(namespaceRef("dev"), nsJSON("dev", map[string]string{"team": "b"}))
	h.put(podRef("prod", "web"), podJSON("prod", "web", "n1", "10.42.1.2", map[string]string{"app": "web"}))
	want(t, "pods without policies cost nothing", h.put(podRef("prod", "client"), podJSON("prod", "client", "n2", "10.42.2.2", map[string]string{"role": "client"})))
	h.put(podRef("prod", "other"), podJSON("prod", "other", "n3", "10.42.3.2", map[string]string{"role": "other"}))
	h.put(podRef("dev", "client"), podJSON("dev", "client", "n3", "10.42.3.3", map[string]string{"role": "client"}))

	want(t, "a policy goes where it selects, with its peers and their namespaces",
		h.put(policyRef("prod", "allow"), `{"metadata":{"namespace":"prod","name":"allow"},"spec":{"podSelector":{"matchLabels":{"app":"web"}},"ingress":[{"from":[{"podSelector":{"matchLabels":{"role":"client"}}}]}]}}`),
		"n1 ADDED networkpolicies/prod/allow", "n1 ADDED peerpods/prod/client", "n1 ADDED namespaces/prod")
	want(t, "a relabelled pod becomes a peer", h.put(podRef("prod", "other"), podJSON("prod", "other", "n3", "10.42.3.2", map[string]string{"role": "client"})),
		"n1 ADDED peerpods/prod/other")
	want(t, "a peer's new address", h.put(podRef("prod", "client"), podJSON("prod", "client", "n2", "10.42.2.9", map[string]string{"role": "client"})),
		"n1 MODIFIED peerpods/prod/client")
	want(t, "an unrelated pod costs nothing", h.put(podRef("dev", "x"), podJSON("dev", "x", "n4", "10.42.4.2", map[string]string{"app": "zzz"})))
	want(t, "a namespace selector brings that namespace's pods and labels",
		h.put(policyRef("prod", "dev"), `{"metadata":{"namespace":"prod","name":"dev"},"spec":{"podSelector":{},"ingress":[{"from":[{"namespaceSelector":{"matchLabels":{"team":"b"}},"podSelector":{"matchLabels":{"role":"client"}}}]}]}}`),
		"n1 ADDED networkpolicies/prod/dev", "n1 ADDED peerpods/dev/client", "n1 ADDED namespaces/dev",
		"n2 ADDED networkpolicies/prod/dev", "n2 ADDED peerpods/dev/client", "n2 ADDED namespaces/dev", "n2 ADDED namespaces/prod",
		"n3 ADDED networkpolicies/prod/dev", "n3 ADDED namespaces/prod", "n3 ADDED namespaces/dev")
	want(t, "namespace labels change which peers match", h.put(namespaceRef("dev"), nsJSON("dev", map[string]string{"team": "c"})),
		"n1 MODIFIED namespaces/dev", "n1 DELETED peerpods/dev/client", "n1 DELETED namespaces/dev",
		"n2 MODIFIED namespaces/dev", "n2 DELETED peerpods/dev/client", "n2 DELETED namespaces/dev", "n3 MODIFIED namespaces/dev")
	view := h.s.nodeView("n1")
	if len(view) != 5 {
		t.Errorf("n1's view: got %d objects, want 5 (namespace, 2 policies, 2 peers): %v", len(view), view)
	}
	want(t, "the selected pod leaves: the node's view empties", h.del(podRef("prod", "web")),
		"n1 DELETED networkpolicies/prod/allow", "n1 DELETED networkpolicies/prod/dev", "n1 DELETED peerpods/prod/client",
		"n1 DELETED peerpods/prod/other", "n1 DELETED namespaces/prod")
	want(t, "the policy goes", h.del(policyRef("prod", "dev")),
		"n2 DELETED networkpolicies/prod/dev", "n2 DELETED namespaces/prod",
		"n3 DELETED networkpolicies/prod/dev", "n3 DELETED namespaces/prod", "n3 DELETED namespaces/dev")
}
