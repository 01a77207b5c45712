package publish

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// putKey writes a stored object at key (create or update).
func putKey(t *testing.T, store datastore.Store, key, value string) int64 {
	t.Helper()
	ctx := context.Background()
	var rev int64
	cur, err := store.Get(ctx, key)
	if err == nil {
		rev, err = store.Update(ctx, key, []byte(value), cur.ModRevision)
	} else {
		rev, err = store.Create(ctx, key, []byte(value))
	}
	if err != nil {
		t.Fatalf("write %s: %v", key, err)
	}
	return rev
}

func peerPodObject(t *testing.T, name, node, ip, role string) string {
	pod := podObject(name, node, "", "", "x")
	pod.Labels = map[string]string{"role": role, "app": name}
	pod.Status = corev1.PodStatus{PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}}
	b, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// heldRefs replays a node's desired events and lists what it holds.
func heldRefs(t *testing.T, bus *recordingBus, node string) string {
	evs := bus.events(t, node)
	m, _ := replay(t, evs, chainStart(evs))
	var out []string
	for ref := range m.Versions() {
		out = append(out, ref.String())
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestPublisherSendsThePolicyView: each node gets the NetworkPolicies that
// select its pods, its peers' summaries and their namespaces on its desired
// stream and in its whole view; a catch-up in a cluster with policies
// becomes a relist.
func TestPublisherSendsThePolicyView(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	putKey(t, store, "/registry/core/namespaces/default", `{"metadata":{"name":"default","labels":{"team":"a"}}}`)
	p := startPublisher(t, store, bus, Config{})
	putKey(t, store, "/registry/core/pods/default/web", peerPodObject(t, "web", "pi-1", "10.42.1.2", "server"))
	putKey(t, store, "/registry/core/pods/default/client", peerPodObject(t, "client", "pi-2", "10.42.2.2", "client"))
	putKey(t, store, "/registry/core/pods/default/other", peerPodObject(t, "other", "pi-3", "10.42.3.2", "other"))
	putKey(t, store, "/registry/networking.k8s.io/networkpolicies/default/allow", `{"metadata":{"namespace":"default","name":"allow"},
		"spec":{"podSelector":{"matchLabels":{"app":"web"}},"ingress":[{"from":[{"podSelector":{"matchLabels":{"role":"client"}}}]}]}}`)
	want := "namespaces/default networkpolicies/default/allow peerpods/default/client pods/default/web"
	waitFor(t, "pi-1's policy view", func() bool { return heldRefs(t, bus, "pi-1") == want })
	if got := heldRefs(t, bus, "pi-2"); got != "pods/default/client" {
		t.Errorf("pi-2 (no policy selects its pods): got %s, want its pod alone", got)
	}
	held := p.processed
	rev := putKey(t, store, "/registry/core/pods/default/other", peerPodObject(t, "other", "pi-3", "10.42.3.2", "client"))
	want = "namespaces/default networkpolicies/default/allow peerpods/default/client peerpods/default/other pods/default/web"
	waitFor(t, "the relabelled pod as pi-1's peer", func() bool { return heldRefs(t, bus, "pi-1") == want })

	v, err := p.View(context.Background(), "pi-1", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range v.Changes {
		got = append(got, c.ObjectRef.String())
		if c.Resource == mqtt.ResourcePeerPods {
			if _, err := mqtt.DecodePeerPod(c.Object); err != nil {
				t.Errorf("%s in the view: %v", c.ObjectRef, err)
			}
		}
	}
	sort.Strings(got)
	if strings.Join(got, " ") != want {
		t.Errorf("whole view: got %v, want %s", got, want)
	}

	sent := len(bus.events(t, "pi-1"))
	bus.ack(t, "pi-1", mqtt.AckHello, held)
	waitFor(t, "a relist instead of a catch-up", func() bool {
		evs := bus.events(t, "pi-1")
		return len(evs) > sent && evs[len(evs)-1].Type == mqtt.EventRelist && evs[len(evs)-1].Rev >= rev
	})
}

// indexEvent applies the store's latest write of key to the index.
func indexEvent(t *testing.T, x *index, store datastore.Store, key string, rev int64, deleted bool) []string {
	t.Helper()
	ref, _ := parseKey(key)
	ev := &datastore.Event{Type: datastore.EventUpdate, Revision: rev, KV: &datastore.KeyValue{Key: key, ModRevision: rev}}
	if deleted {
		ev.Type = datastore.EventDelete
	} else {
		kv, err := store.Get(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		ev.KV = kv
	}
	out, err := x.apply(ref, ev)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, node := range out.order {
		for _, c := range out.of(node) {
			lines = append(lines, node+" "+string(c.typ)+" "+c.ref.String())
		}
	}
	sort.Strings(lines)
	return lines
}

// TestPolicyViewFollowsPodsOnlyWithPolicies: without NetworkPolicies the
// index keeps no pod for the policy view; the first policy lists them (also
// at load), the last one forgets them.
func TestPolicyViewFollowsPodsOnlyWithPolicies(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	putKey(t, store, "/registry/core/namespaces/default", `{"metadata":{"name":"default"}}`)
	putKey(t, store, "/registry/core/pods/default/web", peerPodObject(t, "web", "pi-1", "10.42.1.2", "server"))
	putKey(t, store, "/registry/core/pods/default/client", peerPodObject(t, "client", "pi-2", "10.42.2.2", "client"))
	x := newIndex()
	if _, err := x.load(ctx, store); err != nil {
		t.Fatal(err)
	}
	if len(x.scope.pods) != 0 || x.scope.tracking {
		t.Fatalf("no policies: got %d pods followed (tracking %v), want none", len(x.scope.pods), x.scope.tracking)
	}
	key := "/registry/networking.k8s.io/networkpolicies/default/allow"
	rev := putKey(t, store, key, `{"metadata":{"namespace":"default","name":"allow"},
		"spec":{"podSelector":{"matchLabels":{"app":"web"}},"ingress":[{"from":[{"podSelector":{"matchLabels":{"role":"client"}}}]}]}}`)
	want(t, "the first policy", indexEvent(t, x, store, key, rev, false),
		"pi-1 ADDED networkpolicies/default/allow", "pi-1 ADDED peerpods/default/client", "pi-1 ADDED namespaces/default")
	again := newIndex()
	if _, err := again.load(ctx, store); err != nil {
		t.Fatal(err)
	}
	if got := again.scope.nodeView("pi-1"); len(got) != 3 {
		t.Errorf("loaded with a policy: pi-1's view has %d objects, want 3", len(got))
	}
	_, _, err := store.Delete(ctx, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	want(t, "the last policy goes", indexEvent(t, x, store, key, rev+1, true),
		"pi-1 DELETED networkpolicies/default/allow", "pi-1 DELETED peerpods/default/client", "pi-1 DELETED namespaces/default")
	if len(x.scope.pods) != 0 || x.scope.tracking {
		t.Errorf("after the last policy: got %d pods followed, want none", len(x.scope.pods))
	}
}
