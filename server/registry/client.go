package registry

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Client is the registry for writers in the server's own process
// (controllers, the scheduler's binder, node status, join, leader
// election): objects carry their own kind, namespace and name, and every
// write is admitted exactly as a user's request is. Nothing is
// authenticated or authorized. Errors are API status errors.
type Client struct{ r *Registry }

// Client returns the in-process client of r.
func (r *Registry) Client() *Client { return &Client{r: r} }

var (
	_ controllers.Client     = (*Client)(nil)
	_ controllers.NewCreator = (*Client)(nil)
)

// Create admits and stores a new object; metadata.generateName works. The
// caller's object is not modified.
func (c *Client) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	res, err := c.r.resourceOf(obj)
	if err != nil {
		return nil, err
	}
	if !generatesName(obj) {
		obj = obj.DeepCopyObject().(api.Object)
	} // else Registry.Create admits a copy of obj, named, and leaves obj alone
	return c.r.Create(ctx, res, obj.GetNamespace(), obj, WriteOptions{})
}

// CreateNew is Create of the objects build makes, each made for this call
// alone: the registry admits and keeps the one it stores rather than a
// copy, and calls build again for a fresh one when a generated name turns
// out taken.
func (c *Client) CreateNew(ctx context.Context, build func() api.Object) (api.Object, error) {
	obj := build()
	res, err := c.r.resourceOf(obj)
	if err != nil {
		return nil, err
	}
	return c.r.CreateNew(ctx, res, obj.GetNamespace(), obj, build, WriteOptions{})
}

// Update replaces an object's spec and metadata like PUT: a non-empty
// metadata.resourceVersion must be current (409 Conflict otherwise).
func (c *Client) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.update(ctx, obj, "")
}

// UpdateStatus replaces an object's status like PUT on /status.
func (c *Client) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.update(ctx, obj, "status")
}

// UpdateStatusNew is UpdateStatus of the objects build makes, each made
// for this call alone and sharing nothing with any other object: the
// registry admits and keeps the one it stores, and answers with it, rather
// than a copy. build is called again for a fresh object when the write is
// retried.
func (c *Client) UpdateStatusNew(ctx context.Context, build func() api.Object) (api.Object, error) {
	obj := build()
	res, err := c.r.resourceOf(obj)
	if err != nil {
		return nil, err
	}
	return c.r.UpdateNew(ctx, res, obj.GetNamespace(), obj.GetName(), "status", obj, build)
}

func (c *Client) update(ctx context.Context, obj api.Object, sub string) (api.Object, error) {
	res, err := c.r.resourceOf(obj)
	if err != nil {
		return nil, err
	}
	return c.r.Update(ctx, res, obj.GetNamespace(), obj.GetName(), sub, obj, false)
}

// Delete deletes one object like DELETE with opts (finalizers, propagation
// and namespace contents included).
func (c *Client) Delete(ctx context.Context, res *api.Resource, namespace, name string, o controllers.DeleteOptions) error {
	opts := &DeleteOptions{DeleteOptions: &metav1.DeleteOptions{}}
	if o.UID != "" {
		opts.Preconditions = metav1.NewUIDPreconditions(o.UID)
	}
	if o.Propagation != "" {
		p := o.Propagation
		opts.PropagationPolicy = &p
	}
	opts.GracePeriodSeconds = o.GracePeriod
	_, err := c.r.Delete(ctx, res, namespace, name, opts)
	return err
}

// Get reads the latest stored object.
func (c *Client) Get(ctx context.Context, res *api.Resource, namespace, name string) (api.Object, error) {
	return c.r.Get(ctx, res, namespace, name)
}

// Bind assigns an unbound pod to node like POST pods/{name}/binding.
func (c *Client) Bind(ctx context.Context, namespace, name, node string) error {
	return c.r.Bind(ctx, namespace, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Target: corev1.ObjectReference{Kind: "Node", Name: node}}, false)
}

// resourceOf finds the served kind of an object: typed objects by their Go
// type, unstructured ones by their apiVersion and kind.
func (r *Registry) resourceOf(obj api.Object) (*api.Resource, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if kinds, _, err := api.Scheme().ObjectKinds(obj); err == nil {
		gvk = kinds[0]
	} else if gvk.Kind == "" {
		return nil, fmt.Errorf("object %T: %w", obj, err)
	}
	res, ok := r.kinds.ByKind(gvk.Group, gvk.Kind)
	if !ok {
		return nil, fmt.Errorf("object %T: kind %s is not served", obj, gvk)
	}
	return res, nil
}
