package registry

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// SystemNamespaces exist in every cluster; New creates them.
var SystemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// undeletableNamespaces refuse deletion, as in Kubernetes.
var undeletableNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true}

func (r *Registry) ensureNamespaces(ctx context.Context, names []string) error {
	for _, name := range names {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		_, err := r.Create(ctx, namespacesResource, "", ns, WriteOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create namespace %s: %w", name, err)
		}
	}
	return nil
}

// deleteNamespace marks the namespace Terminating, deletes everything in
// it, then the namespace itself. Objects held by finalizers keep it
// Terminating; the namespace goes when the last of them does.
func (r *Registry) deleteNamespace(ctx context.Context, name string, opts *DeleteOptions) (api.Object, error) {
	if undeletableNamespaces[name] {
		return nil, apierrors.NewForbidden(namespacesResource.GroupResource(), name, errors.New("this namespace may not be deleted"))
	}
	marked, err := r.Mutate(ctx, Mutation{
		Resource: namespacesResource, Name: name, DryRun: opts.DryRun, skipAdmission: true,
		Mutate: func(cur api.Object) (api.Object, error) {
			if err := checkDeletePreconditions(namespacesResource, cur, opts.Preconditions); err != nil {
				return nil, err
			}
			r.markTerminating(cur.(*corev1.Namespace))
			cur.SetFinalizers(deletionFinalizers(cur, opts))
			return cur, nil
		},
	})
	if err != nil || opts.DryRun {
		return marked, err
	}
	return marked, r.finishNamespace(ctx, name)
}

func (r *Registry) markTerminating(ns *corev1.Namespace) {
	if ns.DeletionTimestamp == nil {
		now := metav1.NewTime(r.now().UTC())
		grace := int64(0)
		ns.DeletionTimestamp, ns.DeletionGracePeriodSeconds = &now, &grace
	}
	ns.Status.Phase = corev1.NamespaceTerminating
}

// finishNamespace deletes what is left in a terminating namespace and, once
// it is empty and has no finalizers of its own, the namespace.
func (r *Registry) finishNamespace(ctx context.Context, name string) error {
	left, err := r.purgeNamespace(ctx, name)
	if err != nil || left > 0 {
		return err
	}
	cur, kv, err := r.load(ctx, namespacesResource, "", name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if cur.GetDeletionTimestamp() == nil || len(cur.GetFinalizers()) > 0 {
		return nil
	}
	_, _, err = r.store.Delete(ctx, kv.Key, kv.ModRevision)
	if err != nil && !errors.Is(err, datastore.ErrConflict) && !errors.Is(err, datastore.ErrNotFound) {
		return StoreError(err, namespacesResource, name)
	}
	return nil
}

// purgeNamespace deletes every object in the namespace and counts those
// that finalizers keep. Like the namespace controller of Kubernetes it
// deletes in Background, which also drops an "orphan" or
// "foregroundDeletion" finalizer an earlier delete set: everything in the
// namespace goes anyway.
func (r *Registry) purgeNamespace(ctx context.Context, name string) (int, error) {
	left := 0
	background := metav1.DeletePropagationBackground
	opts := &DeleteOptions{DeleteOptions: &metav1.DeleteOptions{PropagationPolicy: &background}}
	for _, res := range r.kinds.All() {
		if !res.Namespaced || !res.StorageVersion() {
			continue
		}
		page, err := r.store.List(ctx, res.Prefix(name), datastore.ListOptions{})
		if err != nil {
			return 0, StoreError(err, res, "")
		}
		for _, kv := range page.Items {
			obj, err := decodeStored(res, kv)
			if err != nil {
				return 0, err
			}
			out, err := r.removeObject(ctx, res, name, obj.GetName(), opts)
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return 0, fmt.Errorf("delete %s %s/%s: %w", res.Name, name, obj.GetName(), err)
			}
			if stillStored(out) {
				left++
			}
		}
	}
	return left, nil
}

// afterRemoval finishes the object's namespace when it is terminating and
// this object was among the last things in it.
func (r *Registry) afterRemoval(ctx context.Context, res *api.Resource, obj api.Object) {
	if !res.Namespaced {
		return
	}
	ns, _, err := r.load(ctx, namespacesResource, "", obj.GetNamespace())
	if err != nil || ns.GetDeletionTimestamp() == nil {
		return
	}
	if err := r.finishNamespace(ctx, obj.GetNamespace()); err != nil {
		r.log.Warn("finish terminating namespace", "namespace", obj.GetNamespace(), "err", err)
	}
}
