// Package bootstrap keeps the objects every cluster has: an APIService
// for each group version the server serves itself, and upstream's default
// ClusterRoles (cluster-admin, admin, edit, view), which charts bind to.
package bootstrap

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// AutomanagedLabel marks the APIServices the server keeps itself, with
// upstream's label and value ("onstart": made at start, kept in sync).
const AutomanagedLabel = "kube-aggregator.kubernetes.io/automanaged"

// priorities are upstream's discovery priorities for the built-in group
// versions (group priority minimum, version priority); other groups
// (custom resources) get 1000 and 100 as upstream gives them.
var priorities = map[schema.GroupVersion][2]int32{
	{Version: "v1"}: {18000, 1}, {Group: "apps", Version: "v1"}: {17800, 15},
	{Group: "events.k8s.io", Version: "v1"}: {17750, 15}, {Group: "authentication.k8s.io", Version: "v1"}: {17700, 15},
	{Group: "authorization.k8s.io", Version: "v1"}: {17600, 15}, {Group: "autoscaling", Version: "v1"}: {17500, 15},
	{Group: "autoscaling", Version: "v2"}: {17500, 30}, {Group: "batch", Version: "v1"}: {17400, 15},
	{Group: "certificates.k8s.io", Version: "v1"}: {17300, 15}, {Group: "networking.k8s.io", Version: "v1"}: {17200, 15},
	{Group: "policy", Version: "v1"}: {17100, 15}, {Group: "rbac.authorization.k8s.io", Version: "v1"}: {17000, 15},
	{Group: "storage.k8s.io", Version: "v1"}: {16800, 15}, {Group: "apiextensions.k8s.io", Version: "v1"}: {16700, 15},
	{Group: "admissionregistration.k8s.io", Version: "v1"}: {16700, 15}, {Group: "scheduling.k8s.io", Version: "v1"}: {16600, 15},
	{Group: "coordination.k8s.io", Version: "v1"}: {16500, 15}, {Group: "node.k8s.io", Version: "v1"}: {16300, 15},
	{Group: "discovery.k8s.io", Version: "v1"}: {16200, 15}, {Group: "apiregistration.k8s.io", Version: "v1"}: {18000, 15},
}

// localAPIService is the APIService of a group version served here.
func localAPIService(gv schema.GroupVersion) *api.APIService {
	prio, ok := priorities[gv]
	if !ok {
		prio = [2]int32{1000, 100}
	}
	return &api.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: gv.Version + "." + gv.Group, Labels: map[string]string{AutomanagedLabel: "onstart"}},
		Spec:       api.APIServiceSpec{Group: gv.Group, Version: gv.Version, GroupPriorityMinimum: prio[0], VersionPriority: prio[1]},
	}
}

// SyncAPIServices makes the APIServices of the registry's group versions
// exist and be Available, and deletes the automanaged ones of group
// versions no longer served (a custom resource's removed version).
func SyncAPIServices(ctx context.Context, reg *registry.Registry) error {
	res := api.MustLookup("apiregistration.k8s.io", "v1", "apiservices")
	want := map[string]schema.GroupVersion{}
	for _, gv := range reg.Kinds().GroupVersions() {
		want[gv.Version+"."+gv.Group] = gv
	}
	list, err := reg.List(ctx, res, "", registry.ListOptions{})
	if err != nil {
		return fmt.Errorf("list apiservices: %w", err)
	}
	for _, obj := range list.Items {
		if err := reconcile(ctx, reg, res, obj.(*api.APIService), want); err != nil {
			return err
		}
	}
	for _, gv := range want {
		created, err := reg.Create(ctx, res, "", localAPIService(gv), registry.WriteOptions{})
		if apierrors.IsAlreadyExists(err) {
			continue // another server made it; the next sync checks it
		}
		if err == nil {
			err = markAvailable(ctx, reg, created.(*api.APIService))
		}
		if err != nil {
			return fmt.Errorf("apiservice %s: %w", gv, err)
		}
	}
	return nil
}

// reconcile marks a wanted local APIService Available (and takes it off
// want), or deletes an automanaged one that is not wanted.
func reconcile(ctx context.Context, reg *registry.Registry, res *api.Resource, s *api.APIService, want map[string]schema.GroupVersion) error {
	var err error
	if _, ok := want[s.Name]; ok {
		delete(want, s.Name)
		if s.Spec.Service == nil && !available(s) {
			err = markAvailable(ctx, reg, s)
		}
	} else if s.Labels[AutomanagedLabel] != "" && s.Spec.Service == nil {
		_, err = reg.Delete(ctx, res, "", s.Name, &registry.DeleteOptions{})
	}
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("apiservice %s: %w", s.Name, err)
	}
	return nil
}

func available(s *api.APIService) bool {
	for _, c := range s.Status.Conditions {
		if c.Type == "Available" {
			return c.Status == "True"
		}
	}
	return false
}

func markAvailable(ctx context.Context, reg *registry.Registry, s *api.APIService) error {
	s = s.DeepCopy()
	s.Status.Conditions = []api.APIServiceCondition{{Type: "Available", Status: "True", Reason: "Local",
		Message: "Local APIServices are always available", LastTransitionTime: metav1.NewTime(reg.Now().UTC())}}
	_, err := reg.Client().UpdateStatus(ctx, s)
	return err
}

// Start reconciles the default ClusterRoles and their bindings before it
// returns, then keeps the local APIServices in step with the set of kinds
// (and bramble:viewer with them), in the background until ctx ends, as
// upstream's post-start hooks do; the API serves meanwhile. Failures are
// logged and retried: the first steps every few seconds, the sync on the
// next change of kinds.
func Start(ctx context.Context, reg *registry.Registry, log *slog.Logger) {
	changed := make(chan struct{}, 1)
	reg.Kinds().OnChange(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	// The roles and bindings every identity leans on are in place before the
	// API serves (upstream's /readyz waits for them too); a failure here is
	// retried in the background.
	rolesErr := EnsureClusterRoles(ctx, reg)
	go func() {
		if (rolesErr != nil && !retry(ctx, log, "create default cluster roles", func() error { return EnsureClusterRoles(ctx, reg) })) ||
			!retry(ctx, log, "sync local APIServices", func() error { return SyncAPIServices(ctx, reg) }) {
			return
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-changed:
				if err := SyncAPIServices(ctx, reg); err != nil {
					log.Warn("sync local APIServices", "err", err)
				}
				if err := EnsureClusterRoles(ctx, reg); err != nil {
					log.Warn("reconcile default cluster roles", "err", err)
				}
			}
		}
	}()
}

// retry runs f until it succeeds (true) or ctx ends (false).
func retry(ctx context.Context, log *slog.Logger, what string, f func() error) bool {
	for {
		err := f()
		if err == nil {
			return true
		}
		log.Warn(what, "err", err)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(3 * time.Second):
		}
	}
}
