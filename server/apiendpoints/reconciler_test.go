package apiendpoints

import (
	"context"
	"log/slog"
	"net/netip"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/registry"
)

func newReconciler(t *testing.T, ip string, port int) *Reconciler {
	t.Helper()
	ctx := context.Background()
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"), datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatalf("open datastore: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	reg, err := registry.New(ctx, registry.Config{Store: store})
	if err != nil {
		t.Fatalf("registry: %v", err)
	}
	return &Reconciler{Registry: reg, Addresses: Single(netip.MustParseAddr(ip)), Port: port, Log: slog.New(slog.DiscardHandler)}
}

func get[T api.Object](t *testing.T, r *Reconciler, res *api.Resource) T {
	t.Helper()
	o, err := r.Registry.Get(context.Background(), res, Namespace, Name)
	if err != nil {
		t.Fatalf("get %s: %v", res.Name, err)
	}
	return o.(T)
}

// check asserts both objects name ip:port.
func check(t *testing.T, r *Reconciler, ip string, port int32) {
	t.Helper()
	ep := get[*corev1.Endpoints](t, r, endpointsRes)
	if len(ep.Subsets) != 1 || len(ep.Subsets[0].Addresses) != 1 || ep.Subsets[0].Addresses[0].IP != ip ||
		ep.Subsets[0].Ports[0].Port != port {
		t.Fatalf("endpoints subsets = %+v, want %s:%d", ep.Subsets, ip, port)
	}
	s := get[*discoveryv1.EndpointSlice](t, r, slicesRes)
	if s.Labels[discoveryv1.LabelServiceName] != Name || s.Labels[discoveryv1.LabelManagedBy] != ManagedBy {
		t.Fatalf("slice labels = %v", s.Labels)
	}
	if len(s.Endpoints) != 1 || s.Endpoints[0].Addresses[0] != ip || *s.Ports[0].Port != port || *s.Ports[0].Name != "https" {
		t.Fatalf("slice = %+v %+v, want %s:%d", s.Endpoints, s.Ports, ip, port)
	}
	if c := s.Endpoints[0].Conditions; c.Ready == nil || !*c.Ready {
		t.Fatalf("endpoint not ready: %+v", c)
	}
}

func TestReconcileCreatesAndRepairs(t *testing.T) {
	ctx := context.Background()
	r := newReconciler(t, "192.0.2.10", 6443)
	if err := r.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	check(t, r, "192.0.2.10", 6443)
	rv := get[*discoveryv1.EndpointSlice](t, r, slicesRes).ResourceVersion
	if err := r.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if got := get[*discoveryv1.EndpointSlice](t, r, slicesRes).ResourceVersion; got != rv {
		t.Fatalf("an unchanged slice was rewritten: rv %s -> %s", rv, got)
	}

	// Someone edits both: the next pass puts them back.
	ep := get[*corev1.Endpoints](t, r, endpointsRes)
	ep.Subsets[0].Addresses[0].IP = "198.51.100.1"
	if _, err := r.Registry.Update(ctx, endpointsRes, Namespace, Name, "", ep, false); err != nil {
		t.Fatal(err)
	}
	s := get[*discoveryv1.EndpointSlice](t, r, slicesRes)
	s.Labels[discoveryv1.LabelManagedBy] = "someone-else"
	*s.Ports[0].Port = 1
	if _, err := r.Registry.Update(ctx, slicesRes, Namespace, Name, "", s, false); err != nil {
		t.Fatal(err)
	}
	if err := r.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	check(t, r, "192.0.2.10", 6443)

	// Deleted: written again.
	for _, res := range []*api.Resource{endpointsRes, slicesRes} {
		if _, err := r.Registry.Delete(ctx, res, Namespace, Name, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	check(t, r, "192.0.2.10", 6443)
}

func TestReconcileFollowsAddressChange(t *testing.T) {
	ctx := context.Background()
	r := newReconciler(t, "192.0.2.10", 6443)
	if err := r.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	r.Addresses, r.Port = Single(netip.MustParseAddr("192.0.2.20")), 7443
	if err := r.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	check(t, r, "192.0.2.20", 7443)
	// An IPv6 address needs a slice of another (immutable) address type.
	r.Addresses = Single(netip.MustParseAddr("2001:db8::1"))
	if err := r.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	check(t, r, "2001:db8::1", 7443)
	if at := get[*discoveryv1.EndpointSlice](t, r, slicesRes).AddressType; at != discoveryv1.AddressTypeIPv6 {
		t.Fatalf("address type = %s", at)
	}
}

func TestReconcileNoAddress(t *testing.T) {
	r := newReconciler(t, "192.0.2.10", 6443)
	r.Addresses = func() []netip.Addr { return nil }
	if err := r.Reconcile(context.Background()); err == nil {
		t.Fatal("no error without an address")
	}
}
