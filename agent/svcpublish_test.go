package agent

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/netip"
	"path/filepath"
	"testing"

	mdns "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/agent/network/dns"
	"github.com/bramble-edge/bramble/agent/network/proxy"
	"github.com/bramble-edge/bramble/mqtt"
)

// published is a change as the server's publisher sends it: the object
// reduced by mqtt.EncodeProxyObject, under the publisher's resource name.
func published(t *testing.T, resource, name string, obj any) mqtt.Change {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	reduced, err := mqtt.EncodeProxyObject(resource, raw)
	if err != nil {
		t.Fatal(err)
	}
	return mqtt.Change{Type: mqtt.Added, ObjectRef: ref(resource, "demo", name), Object: reduced}
}

// TestPublishedServicesReachProxyAndDNS: Services and EndpointSlices as
// the publisher sends them, applied by the applier, are where the service
// proxy and the cluster DNS read them, also after the store is reopened
// (an agent restarting without the server).
func TestPublishedServicesReachProxyAndDNS(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	first := openStore(t, dir)
	headless := webService()
	headless.Name, headless.Spec.ClusterIP, headless.Spec.ClusterIPs = "db", corev1.ClusterIPNone, nil
	dbSlice := webSlice()
	dbSlice.Name, dbSlice.Labels = "db-1", map[string]string{discoveryv1.LabelServiceName: "db"}
	dbSlice.Endpoints = []discoveryv1.Endpoint{{Addresses: []string{"10.42.1.9"},
		TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: "db-0"}}}
	svc := webService()
	svc.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	if err := NewApplier(first, &fakeManager{}).Apply(context.Background(), mqtt.Event{Type: mqtt.EventChanges, Rev: 5,
		Changes: []mqtt.Change{published(t, mqtt.ResourceServices, "web", svc),
			published(t, mqtt.ResourceEndpointSlices, "web-1", webSlice()),
			published(t, mqtt.ResourceServices, "db", headless),
			published(t, mqtt.ResourceEndpointSlices, "db-1", dbSlice)}}); err != nil {
		t.Fatal(err)
	}
	first.Close()
	store := openStore(t, dir) // a restart, without the server
	checkProxyReads(t, store)
	c := &clusterDNS{store: store, domain: "cluster.local", log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	v := dns.Build(c.snapshot(), c.domain, 1)
	for name, want := range map[string]string{"web.demo.svc.cluster.local.": "10.43.0.10", "db.demo.svc.cluster.local.": "10.42.1.9"} {
		a := v.Lookup(name, mdns.TypeA)
		if len(a.Answer) != 1 || a.Answer[0].(*mdns.A).A.String() != want {
			t.Errorf("A %s: got %v, want %s", name, a.Answer, want)
		}
	}
}

// checkProxyReads: the proxy's Plan from the store has the web Service's
// ClusterIP frontend and its endpoint.
func checkProxyReads(t *testing.T, store *Store) {
	t.Helper()
	in := proxy.Input{Node: "n1"}
	if errs := proxy.Decode(&in, storedJSON(store, resourceServices), storedJSON(store, resourceEndpointSlices)); len(errs) > 0 {
		t.Fatalf("decode stored services: %v", errs)
	}
	for _, sp := range proxy.Compile(in).Ports {
		if sp.ID != "demo/web:http" {
			continue
		}
		front := proxy.Frontend{IP: netip.MustParseAddr("10.43.0.10"), Port: 80}
		ep := proxy.Endpoint{IP: netip.MustParseAddr("10.42.1.7"), Port: 8080}
		if len(sp.Internal) != 1 || sp.Internal[0] != front || len(sp.Cluster) != 1 || sp.Cluster[0] != ep {
			t.Errorf("proxy port: got %+v, want %v -> %v", sp, front, ep)
		}
		return
	}
	t.Errorf("the proxy's plan has no port demo/web:http")
}
