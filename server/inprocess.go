package server

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// The methods below let in-process writers (controllers, the scheduler,
// node and pod status from agents) write through the same admission path
// as HTTP clients, without a loopback connection. They skip authentication
// and authorization. Errors are API status errors, so callers can test
// them with k8s.io/apimachinery/pkg/api/errors (IsConflict, IsNotFound).

// Create admits and stores a new object (metadata.namespace names its
// namespace for namespaced kinds).
func (a *API) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	res, err := resourceOf(obj)
	if err != nil {
		return nil, err
	}
	return a.createObject(ctx, res, obj.GetNamespace(), obj.DeepCopyObject().(api.Object), false)
}

// Update replaces an object's spec and metadata like PUT: a non-empty
// metadata.resourceVersion must be current (409 Conflict otherwise).
func (a *API) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return a.updateInProcess(ctx, obj, "")
}

// UpdateStatus replaces an object's status like PUT on /status.
func (a *API) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	return a.updateInProcess(ctx, obj, "status")
}

func (a *API) updateInProcess(ctx context.Context, obj api.Object, sub string) (api.Object, error) {
	res, err := resourceOf(obj)
	if err != nil {
		return nil, err
	}
	want := obj.DeepCopyObject().(api.Object)
	return a.updateObject(ctx, writeReq{
		res: res, ns: obj.GetNamespace(), name: obj.GetName(),
		mutate: func(api.Object) (api.Object, error) { return want.DeepCopyObject().(api.Object), nil },
		admit:  admitUpdate(res, sub),
	})
}

// Delete deletes one object like DELETE (finalizers and namespace contents
// included); uid, when set, is a precondition.
func (a *API) Delete(ctx context.Context, res *api.Resource, namespace, name string, uid string) (api.Object, error) {
	opts := &deleteOpts{DeleteOptions: &metav1.DeleteOptions{}}
	if uid != "" {
		opts.Preconditions = metav1.NewUIDPreconditions(uid)
	}
	return a.deleteOne(ctx, res, namespace, name, opts)
}

// Bind assigns an unbound pod to node like POST pods/{name}/binding.
func (a *API) Bind(ctx context.Context, namespace, name, node string) error {
	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Target: corev1.ObjectReference{Kind: "Node", Name: node}}
	_, err := a.updateObject(ctx, writeReq{
		res: podsResource, ns: namespace, name: name,
		mutate: func(cur api.Object) (api.Object, error) { return a.bindPod(cur.(*corev1.Pod), b) },
	})
	return err
}

// resourceOf finds the served resource of a typed object.
func resourceOf(obj api.Object) (*api.Resource, error) {
	kinds, _, err := api.Scheme.ObjectKinds(obj)
	if err != nil {
		return nil, fmt.Errorf("object %T: %w", obj, err)
	}
	res, ok := api.ByKind(kinds[0].Group, kinds[0].Kind)
	if !ok {
		return nil, fmt.Errorf("object %T: kind %s is not served", obj, kinds[0])
	}
	return res, nil
}
