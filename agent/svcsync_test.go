package agent

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/agent/network/netnstest"
	"github.com/bramble-edge/bramble/mqtt"
)

func webService() *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.43.0.10", ClusterIPs: []string{"10.43.0.10"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}}}
}

func webSlice() *discoveryv1.EndpointSlice {
	name, port, proto := "http", int32(8080), corev1.ProtocolTCP
	return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web-1",
		Labels: map[string]string{discoveryv1.LabelServiceName: "web"}}, AddressType: discoveryv1.AddressTypeIPv4,
		Ports:     []discoveryv1.EndpointPort{{Name: &name, Port: &port, Protocol: &proto}},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.42.1.7"}}}}
}

// TestServicesFollowStore: the agent's network, run inside a test network
// namespace, programs the service proxy from the Services and
// EndpointSlices of the local store; storing one kicks the network's
// loop; with the Service deleted no svc-* rule is left.
func TestServicesFollowStore(t *testing.T) {
	ns := netnstest.New(t, "ags")
	store := openStore(t, t.TempDir())
	a := NewApplier(store, &fakeManager{})
	kicks := 0
	a.SetOnNodes(func() { kicks++ })
	svcRef := ref(resourceServices, "demo", "web")
	if err := a.Apply(context.Background(), mqtt.Event{Type: mqtt.EventChanges, Rev: 3, Changes: []mqtt.Change{
		change(t, mqtt.Added, svcRef, webService()),
		change(t, mqtt.Added, ref(resourceEndpointSlices, "demo", "web-1"), webSlice()),
	}}); err != nil {
		t.Fatal(err)
	}
	if kicks != 1 {
		t.Errorf("storing a Service kicked the network loop %d times, want 1", kicks)
	}
	n := newTestNetwork(t, store)
	if err := ns.Do(n.syncServices); err != nil {
		t.Fatalf("sync services: %v", err)
	}
	out := ns.Run(t, "nft", "list", "table", "inet", "bramble")
	for _, want := range []string{"10.43.0.10 . tcp . 80", "dnat ip to 10.42.1.7:8080", "svc-prerouting"} {
		if !strings.Contains(out, want) {
			t.Errorf("rules lack %q:\n%s", want, out)
		}
	}
	if err := a.Apply(context.Background(), mqtt.Event{Type: mqtt.EventChanges, Rev: 4, Changes: []mqtt.Change{
		{Type: mqtt.Deleted, ObjectRef: svcRef}}}); err != nil {
		t.Fatal(err)
	}
	if err := ns.Do(n.syncServices); err != nil {
		t.Fatalf("sync services: %v", err)
	}
	if out := ns.Run(t, "nft", "list", "table", "inet", "bramble"); strings.Contains(out, "svc-") {
		t.Errorf("svc-* rules left after the Service was deleted:\n%s", out)
	}
}
