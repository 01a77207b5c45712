package controllers

import (
	"context"
	"log/slog"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
)

// Client writes through the API server's admission path (defaulting,
// strategies, validation), as a user's request would, without a network
// hop. Errors are API status errors: test them with
// k8s.io/apimachinery/pkg/api/errors (IsConflict, IsNotFound, IsAlreadyExists).
type Client interface {
	// Create admits and stores a new object; metadata.generateName works.
	Create(ctx context.Context, obj api.Object) (api.Object, error)
	// Update replaces spec and metadata like PUT; a non-empty
	// metadata.resourceVersion must be current (conflict otherwise).
	Update(ctx context.Context, obj api.Object) (api.Object, error)
	// UpdateStatus replaces the status like PUT on /status.
	UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error)
	// Delete deletes one object like DELETE with opts.
	Delete(ctx context.Context, res *api.Resource, namespace, name string, opts DeleteOptions) error
	// Get reads the latest stored object, bypassing any cache.
	Get(ctx context.Context, res *api.Resource, namespace, name string) (api.Object, error)
}

// NewCreator is a Client that can take over an object made for one
// create, sparing the copy Create makes of what it is given.
type NewCreator interface {
	// CreateNew is Create of build's object; build is called again for a
	// fresh one when a generated name turns out taken. The object returned
	// may share memory with the shared cache's: read it, never change it.
	CreateNew(ctx context.Context, build func() api.Object) (api.Object, error)
}

// CreateNew creates the object build makes for this call alone: handed
// over when c is a NewCreator, given to Create otherwise. The caller only
// reads the object returned.
func CreateNew(ctx context.Context, c Client, build func() api.Object) (api.Object, error) {
	if nc, ok := c.(NewCreator); ok {
		return nc.CreateNew(ctx, build)
	}
	return c.Create(ctx, build())
}

// DeleteOptions are the parts of metav1.DeleteOptions controllers use.
type DeleteOptions struct {
	// UID, when set, must be the stored object's UID (conflict otherwise),
	// so a controller never deletes a namesake created meanwhile.
	UID string
	// Propagation is Background when empty.
	Propagation metav1.DeletionPropagation
	// GracePeriod, when set, is the delete's gracePeriodSeconds: 0 removes
	// a pod at once (a force delete), without waiting for its node.
	GracePeriod *int64
}

// KeyOf is an object's work-queue key: "namespace/name", or "name" for
// cluster-scoped objects (the informers' key).
func KeyOf(obj metav1.Object) string { return informer.KeyOf(obj) }

// ControllerKey is the work-queue key of obj's controlling owner, when
// that owner is of the given apiVersion and kind.
func ControllerKey(obj metav1.Object, apiVersion, kind string) (string, bool) {
	ref := metav1.GetControllerOfNoCopy(obj)
	if ref == nil || ref.Kind != kind || ref.APIVersion != apiVersion {
		return "", false
	}
	return obj.GetNamespace() + "/" + ref.Name, true
}

// SplitKey splits a key made by KeyOf.
func SplitKey(key string) (namespace, name string) {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

// Deps is what every controller is made from.
type Deps struct {
	// Cache is shared; controllers ask it for informers in New, before
	// the manager starts it.
	Cache  *Cache
	Client Client
	Log    *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// PodMetrics is the pods' usage (nil: none; the HPA controller then
	// reports its metrics missing).
	PodMetrics PodMetrics
}

// Clock returns d.Now, or time.Now when it is nil.
func (d Deps) Clock() func() time.Time {
	if d.Now == nil {
		return time.Now
	}
	return d.Now
}

// Logger returns d.Log with the controller's name attached, or a logger
// that discards everything when d.Log is nil.
func (d Deps) Logger(controller string) *slog.Logger {
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return log.With("controller", controller)
}

// MustResource is the served resource group/v1/name. A controller asks for
// the resources it is built on when its package loads; one not served is
// a programming error, so it panics.
func MustResource(group, name string) *api.Resource {
	r, ok := api.Lookup(group, "v1", name)
	if !ok {
		panic("controllers: resource " + group + "/" + name + " is not served")
	}
	return r
}
