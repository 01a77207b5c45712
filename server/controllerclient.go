package server

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// ControllerClient is the API as the controllers' Client: their writes go
// through the same admission path as users' requests, in process.
func (a *API) ControllerClient() controllers.Client { return controllerClient{a} }

type controllerClient struct{ a *API }

func (c controllerClient) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.a.Create(ctx, obj)
}

func (c controllerClient) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.a.Update(ctx, obj)
}

func (c controllerClient) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.a.UpdateStatus(ctx, obj)
}

func (c controllerClient) Delete(ctx context.Context, res *api.Resource, namespace, name string, o controllers.DeleteOptions) error {
	opts := &deleteOpts{DeleteOptions: &metav1.DeleteOptions{}}
	if o.UID != "" {
		opts.Preconditions = metav1.NewUIDPreconditions(o.UID)
	}
	if o.Propagation != "" {
		p := o.Propagation
		opts.PropagationPolicy = &p
	}
	_, err := c.a.deleteOne(ctx, res, namespace, name, opts)
	return err
}

func (c controllerClient) Get(ctx context.Context, res *api.Resource, namespace, name string) (api.Object, error) {
	obj, _, err := c.a.load(ctx, res, namespace, name)
	return obj, err
}
