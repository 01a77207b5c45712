package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

func svcKey(res, name string) string { // under svcPrefixes
	if res == mqtt.ResourceServices {
		return "/registry/core/services/demo/" + name
	}
	return "/registry/discovery.k8s.io/endpointslices/demo/" + name
}

func svcRef(res, name string) mqtt.ObjectRef {
	return mqtt.ObjectRef{Resource: res, Namespace: "demo", Name: name}
}

// putObj writes obj under key, creating or updating it.
func putObj(t testing.TB, store datastore.Store, key string, obj any) int64 {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var rev int64
	if cur, gerr := store.Get(ctx, key); gerr == nil {
		rev, err = store.Update(ctx, key, data, cur.ModRevision)
	} else {
		rev, err = store.Create(ctx, key, data)
	}
	if err != nil {
		t.Fatalf("write %s: %v", key, err)
	}
	return rev
}

// service is a Service as the API stores it: labels, managed fields and a
// selector the agents need not see.
func service(name, clusterIP, label string) *corev1.Service {
	return &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name, UID: types.UID("u-" + name), Labels: map[string]string{"l": label},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}},
		Spec: corev1.ServiceSpec{ClusterIP: clusterIP, ClusterIPs: []string{clusterIP}, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}}}
}

// slice is an EndpointSlice of service svc with one endpoint per address,
// with the targetRef and zone the controller writes.
func slice(name, svc string, addrs ...string) *discoveryv1.EndpointSlice {
	port, zone := int32(8080), "z1"
	s := &discoveryv1.EndpointSlice{TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name, Labels: map[string]string{
			discoveryv1.LabelServiceName: svc, discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"}},
		AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{{Port: &port}}}
	for _, a := range addrs {
		node := "r1"
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{a}, NodeName: &node, Zone: &zone,
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "demo", Name: "pod-" + a}})
	}
	return s
}

// held is the object ref a replayed stream leaves node holding, decoded
// into out; false when it holds none.
func held(t testing.TB, bus *recordingBus, node string, ref mqtt.ObjectRef, out any) bool {
	t.Helper()
	m, _ := replay(t, bus.events(t, node), 0)
	o, ok := m.Get(ref)
	if ok && out != nil {
		if err := json.Unmarshal(o.JSON, out); err != nil {
			t.Fatal(err)
		}
	}
	return ok
}

func routedNodes(t testing.TB, store datastore.Store) {
	putNode(t, store, nodeObject("r1", "10.42.1.0/24", corev1.ConditionTrue))
	putNode(t, store, nodeObject("r2", "10.42.2.0/24", corev1.ConditionTrue))
	hollow := nodeObject("h1", "10.42.3.0/24", corev1.ConditionTrue)
	delete(hollow.Annotations, mqtt.AnnotationNodeIP)
	putNode(t, store, hollow)
}

// TestServicesReachRoutedNodes: every routed node holds every Service,
// reduced, and its summary; only r1, which hosts the endpoints, holds the
// EndpointSlice (r2 reaches them through r1's relay). A label-only write
// reaches nobody; an endpoint added on r1 reaches r1 (the slice) and r2
// (the summary's count) once each; an endpoint's address changing on r1
// reaches r1 only; a deleted slice leaves r1's view; a hollow node gets
// nothing until it routes.
func TestServicesReachRoutedNodes(t *testing.T) {
	for i, res := range []string{mqtt.ResourceServices, mqtt.ResourceEndpointSlices} {
		if got, ok := parseKey(svcPrefixes[i] + "demo/x"); !ok || got != svcRef(res, "x") {
			t.Fatalf("key under %s: got %v, want %v (the API's storage prefix)", svcPrefixes[i], got, svcRef(res, "x"))
		}
	}
	store, bus := openStore(t), newRecordingBus()
	p := startPublisher(t, store, bus, Config{})
	routedNodes(t, store)
	sliceRef, sumRef := svcRef(mqtt.ResourceEndpointSlices, "web-1"), svcRef(mqtt.ResourceServiceSummaries, "web")
	putObj(t, store, svcKey(mqtt.ResourceServices, "web"), service("web", "10.43.0.20", "a"))
	putObj(t, store, svcKey(mqtt.ResourceEndpointSlices, "web-1"), slice("web-1", "web", "10.42.1.5"))
	waitFor(t, "the slice at r1 and the summary at r2", func() bool {
		return held(t, bus, "r1", sliceRef, nil) && hostsAt(t, bus, "r2") == "r1=10.42.1.0x1"
	})
	checkSentService(t, bus)
	if held(t, bus, "r2", sliceRef, nil) {
		t.Error("r2 runs no endpoint of web but holds its slice")
	}
	before := bus.topics()
	putObj(t, store, svcKey(mqtt.ResourceServices, "web"), service("web", "10.43.0.20", "b")) // label only
	putObj(t, store, svcKey(mqtt.ResourceEndpointSlices, "web-1"), slice("web-1", "web", "10.42.1.5", "10.42.1.6"))
	waitFor(t, "the new endpoint at r1, counted at r2", func() bool {
		var got discoveryv1.EndpointSlice
		return held(t, bus, "r1", sliceRef, &got) && len(got.Endpoints) == 2 && hostsAt(t, bus, "r2") == "r1=10.42.1.0x2"
	})
	since := putObj(t, store, svcKey(mqtt.ResourceEndpointSlices, "web-1"), slice("web-1", "web", "10.42.1.5", "10.42.1.9"))
	waitFor(t, "the moved endpoint at r1", func() bool {
		var got discoveryv1.EndpointSlice
		return held(t, bus, "r1", sliceRef, &got) && got.Endpoints[1].Addresses[0] == "10.42.1.9"
	})
	after := bus.topics()
	for n, want := range map[string]int{"r1": 2, "r2": 1} {
		if got := after[mqtt.DesiredTopic(n)] - before[mqtt.DesiredTopic(n)]; got != want {
			t.Errorf("%s: got %d messages for a label write, an endpoint added and one moved, want %d", n, got, want)
		}
	}
	if n := len(bus.events(t, "h1")); n != 0 {
		t.Errorf("hollow h1 got %d events, want none", n)
	}
	if _, _, err := store.Delete(context.Background(), svcKey(mqtt.ResourceEndpointSlices, "web-1"), 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the slice gone from r1", func() bool { return !held(t, bus, "r1", sliceRef, nil) && hostsAt(t, bus, "r2") == "" })
	checkServiceViews(t, p, since)
	putNode(t, store, nodeObject("h1", "10.42.3.0/24", corev1.ConditionTrue)) // now routes
	waitFor(t, "the Service at h1", func() bool { return held(t, bus, "h1", sumRef, nil) })
}

// hostsAt is web's summary at node as "node=ip x count" entries.
func hostsAt(t testing.TB, bus *recordingBus, node string) string {
	var sum mqtt.ServiceSummary
	if !held(t, bus, node, svcRef(mqtt.ResourceServiceSummaries, "web"), &sum) {
		return "none"
	}
	var out []string
	for _, h := range sum.Hosts {
		out = append(out, fmt.Sprintf("%s=%sx%d", h.Node, h.IP, h.Endpoints))
	}
	if len(sum.Relays) != 1 || sum.Relays[0].Relay < RelayPortBase || sum.Relays[0].Relay >= RelayPortBase+RelayPortSize {
		t.Errorf("summary relays: got %+v, want one port in the relay range", sum.Relays)
	}
	return strings.Join(out, ",")
}

// checkSentService: the Service and the slice as sent are reduced.
func checkSentService(t *testing.T, bus *recordingBus) {
	t.Helper()
	var svc corev1.Service
	var es discoveryv1.EndpointSlice
	held(t, bus, "r2", svcRef(mqtt.ResourceServices, "web"), &svc)
	held(t, bus, "r1", svcRef(mqtt.ResourceEndpointSlices, "web-1"), &es)
	if svc.Spec.ClusterIP != "10.43.0.20" || len(svc.ManagedFields) != 0 || svc.Spec.Selector != nil || svc.Labels != nil {
		t.Errorf("sent Service: got %+v, want the spec without selector, labels or managed fields", svc)
	}
	if len(es.Endpoints) != 1 || es.Endpoints[0].TargetRef != nil || es.Endpoints[0].Zone != nil ||
		*es.Endpoints[0].NodeName != "r1" || len(es.Labels) != 1 || es.Labels[discoveryv1.LabelServiceName] != "web" {
		t.Errorf("sent EndpointSlice: got %+v, want endpoints without targetRef or zone, only the service-name label", es)
	}
}

// checkServiceViews: a full view of r1 holds the Nodes and the Service;
// one since `since` only the slice's deletion; h1's none of them.
func checkServiceViews(t *testing.T, p *Publisher, since int64) {
	t.Helper()
	ctx := context.Background()
	full, err := p.View(ctx, "r1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := viewRefs(full); len(got) != 5 || !got[svcRef(mqtt.ResourceServices, "web")] {
		t.Errorf("full view of r1: got %v, want 3 Nodes, the Service and its summary", got)
	}
	delta, err := p.View(ctx, "r1", since)
	if err != nil {
		t.Fatal(err)
	}
	sliceRef := svcRef(mqtt.ResourceEndpointSlices, "web-1")
	sumRef := svcRef(mqtt.ResourceServiceSummaries, "web")
	if got := viewRefs(delta); len(got) != 2 || !got[sliceRef] || !got[sumRef] || delta.Changes[len(delta.Changes)-1].Type != mqtt.Deleted {
		t.Errorf("view of r1 since %d: got %+v, want the summary and the slice's deletion", since, delta.Changes)
	}
	hollow, err := p.View(ctx, "h1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := viewRefs(hollow); len(got) != 0 {
		t.Errorf("full view of hollow h1: got %v, want nothing", got)
	}
}

// TestServicesCatchup: a routed node that lost everything after `held`
// (a slice changed, a Service created, one deleted, a label-only write)
// is brought to the store's Services and slices by one catch-up Event.
func TestServicesCatchup(t *testing.T) {
	store, bus := openStore(t), newRecordingBus()
	startPublisher(t, store, bus, Config{})
	routedNodes(t, store)
	putObj(t, store, svcKey(mqtt.ResourceServices, "web"), service("web", "10.43.0.20", "a"))
	putObj(t, store, svcKey(mqtt.ResourceServices, "old"), service("old", "10.43.0.21", "a"))
	putObj(t, store, svcKey(mqtt.ResourceEndpointSlices, "web-1"), slice("web-1", "web", "10.42.1.5"))
	waitFor(t, "the slice at r1", func() bool { return held(t, bus, "r1", svcRef(mqtt.ResourceEndpointSlices, "web-1"), nil) })
	evs := bus.events(t, "r1")
	heldView, rev := replay(t, evs, 0)
	sent := len(evs)

	putObj(t, store, svcKey(mqtt.ResourceEndpointSlices, "web-1"), slice("web-1", "web", "10.42.1.7"))
	putObj(t, store, svcKey(mqtt.ResourceServices, "new"), service("new", "10.43.0.22", "a"))
	if _, _, err := store.Delete(context.Background(), svcKey(mqtt.ResourceServices, "old"), 0); err != nil {
		t.Fatal(err)
	}
	putObj(t, store, svcKey(mqtt.ResourceServices, "web"), service("web", "10.43.0.20", "b"))
	waitFor(t, "the new Service at r1", func() bool { return held(t, bus, "r1", svcRef(mqtt.ResourceServices, "new"), nil) })

	bus.ack(t, "r1", mqtt.AckHello, rev)
	var catchup *mqtt.Event
	waitFor(t, "a catch-up", func() bool {
		catchup = catchupAfter(bus.events(t, "r1"), sent, rev)
		return catchup != nil
	})
	if got := viewRefs(&mqtt.View{Changes: catchup.Changes}); len(got) != 6 {
		t.Errorf("catch-up: got %v, want the slice, the new and the old Service and their three summaries", got)
	}
	if err := heldView.Apply(context.Background(), *catchup); err != nil {
		t.Fatal(err)
	}
	live, _ := replay(t, bus.events(t, "r1")[:len(bus.events(t, "r1"))-1], 0)
	if got, want := heldView.Versions(), live.Versions(); !maps.Equal(got, want) {
		t.Errorf("view after the catch-up: got %v, want the live stream's %v", got, want)
	}
	if _, ok := heldView.Get(svcRef(mqtt.ResourceServices, "old")); ok {
		t.Error("the deleted Service is still held after the catch-up")
	}
}

// catchupAfter is the catch-up among the events sent after the first
// sent ones: the one chained to the acknowledged revision rev, other than
// the first event after sent (which follows rev too). Events the
// publisher had still to send when the ack came may follow it, so it
// need not be the last.
func catchupAfter(evs []*mqtt.Event, sent int, rev int64) *mqtt.Event {
	for i := sent + 1; i < len(evs); i++ {
		if evs[i].Prev == rev {
			return evs[i]
		}
	}
	return nil
}
