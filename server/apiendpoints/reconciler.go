// Package apiendpoints keeps the endpoints of default/kubernetes, the API
// server's own Service: an EndpointSlice and the legacy Endpoints naming
// the API server's advertise address, written at start and repaired when
// changed or deleted (upstream's "master endpoint reconciler"). The
// Service has no selector, so the endpoints controllers leave both alone.
package apiendpoints

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// Name is the Service, its Endpoints and its EndpointSlice; ManagedBy is
// the slice's endpointslice.kubernetes.io/managed-by label.
const (
	Namespace = "default"
	Name      = "kubernetes"
	ManagedBy = "apiserver.bramble.io"
	portName  = "https"
)

var (
	endpointsRes = api.MustLookup("", "v1", "endpoints")
	slicesRes    = api.MustLookup("discovery.k8s.io", "v1", "endpointslices")
)

// Reconciler writes the endpoints for the servers Addresses returns.
// With one server that is its own address; with several, each server's
// Addresses will be the live servers (by their leases), so each adds
// itself and drops the ones gone, and every server writes the same set.
type Reconciler struct {
	Registry  *registry.Registry
	Addresses func() []netip.Addr
	Port      int
	Log       *slog.Logger
}

// Single is an Addresses for a lone server.
func Single(ip netip.Addr) func() []netip.Addr {
	return func() []netip.Addr { return []netip.Addr{ip} }
}

// Run reconciles now and then every interval until ctx ends; errors are
// logged and retried at the next tick.
func (r *Reconciler) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := r.Reconcile(ctx); err != nil && ctx.Err() == nil {
			r.Log.Warn("kubernetes service endpoints", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Reconcile writes the Endpoints and the EndpointSlice if missing or not
// as wanted.
func (r *Reconciler) Reconcile(ctx context.Context) error {
	addrs := slices.Clone(r.Addresses())
	slices.SortFunc(addrs, func(a, b netip.Addr) int { return a.Compare(b) })
	if len(addrs) == 0 {
		return fmt.Errorf("no API server address")
	}
	if err := r.ensure(ctx, endpointsRes, wantEndpoints(addrs, r.Port), endpointsFit); err != nil {
		return fmt.Errorf("endpoints %s/%s: %w", Namespace, Name, err)
	}
	if err := r.ensure(ctx, slicesRes, wantSlice(addrs, r.Port), sliceFits); err != nil {
		return fmt.Errorf("endpointslice %s/%s: %w", Namespace, Name, err)
	}
	return nil
}

// ensure creates want, or rewrites the stored object when fits says it
// differs (keeping the stored metadata but for the labels want sets).
func (r *Reconciler) ensure(ctx context.Context, res *api.Resource, want api.Object, fits func(have, want api.Object) bool) error {
	have, err := r.Registry.Get(ctx, res, Namespace, Name)
	if apierrors.IsNotFound(err) {
		_, err = r.Registry.Create(ctx, res, Namespace, want, registry.WriteOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil // another writer was first; the next tick checks it
		}
		return err
	}
	if err != nil || fits(have, want) {
		return err
	}
	if s, ok := have.(*discoveryv1.EndpointSlice); ok && s.AddressType != want.(*discoveryv1.EndpointSlice).AddressType {
		// addressType is immutable: the slice is made again.
		if _, err := r.Registry.Delete(ctx, res, Namespace, Name, nil); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		_, err = r.Registry.Create(ctx, res, Namespace, want, registry.WriteOptions{})
		return err
	}
	_, err = r.Registry.Mutate(ctx, registry.Mutation{Resource: res, Namespace: Namespace, Name: Name,
		Mutate: func(cur api.Object) (api.Object, error) { return overlay(cur, want), nil }})
	return err
}
