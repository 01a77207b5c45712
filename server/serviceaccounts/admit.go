// Package serviceaccounts is the ServiceAccount admission of the
// registry, as upstream's: every namespace has a "default" ServiceAccount
// (made in the same write that creates the namespace, and made again when
// a pod needs it and it was deleted), a pod without
// spec.serviceAccountName gets "default", and a pod naming a
// ServiceAccount that does not exist is refused.
package serviceaccounts

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// DefaultName is the ServiceAccount every namespace has.
const DefaultName = "default"

// mirrorAnnotation marks the API's copy of a static pod, which upstream
// leaves out of ServiceAccount admission.
const mirrorAnnotation = "kubernetes.io/config.mirror"

var (
	namespaces      = api.MustLookup("", "v1", "namespaces")
	pods            = api.MustLookup("", "v1", "pods")
	serviceAccounts = api.MustLookup("", "v1", "serviceaccounts")
)

// Admitter is the ServiceAccount admission plugin.
type Admitter struct{ reg *registry.Registry }

var _ registry.Admitter = (*Admitter)(nil)

// New returns the plugin; call EnsureAll before the registry serves writes.
func New(reg *registry.Registry) *Admitter { return &Admitter{reg: reg} }

// Admit gives a new namespace its default ServiceAccount once it is
// stored, and checks a new pod's ServiceAccount.
func (a *Admitter) Admit(ctx context.Context, attrs *registry.Attributes) (func(bool), error) {
	if !attrs.Create() || attrs.Subresource != "" {
		return nil, nil
	}
	switch attrs.Resource {
	case namespaces:
		name := attrs.Object.GetName()
		return func(stored bool) {
			if stored {
				// The namespace stands; a failure here is healed when a pod needs the account.
				_ = a.ensure(context.WithoutCancel(ctx), name)
			}
		}, nil
	case pods:
		return nil, a.admitPod(ctx, attrs.Object.(*corev1.Pod), attrs.Revision)
	}
	return nil, nil
}

// admitPod reads the pod's ServiceAccount as of rev, from the shared cache
// when it can say (the account is only read), and makes a missing default
// one again.
func (a *Admitter) admitPod(ctx context.Context, pod *corev1.Pod, rev int64) error {
	if _, mirror := pod.Annotations[mirrorAnnotation]; mirror {
		return nil
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = DefaultName
	}
	pod.Spec.DeprecatedServiceAccount = pod.Spec.ServiceAccountName
	sa := pod.Spec.ServiceAccountName
	obj, err := a.reg.GetAtLeast(ctx, serviceAccounts, pod.Namespace, sa, rev)
	if err != nil { // apart: apierrors.IsNotFound allocates, even on nil
		if obj, err = a.afterFailedRead(ctx, pod, err); err != nil {
			return err
		}
	}
	applyAccount(pod, obj.(*corev1.ServiceAccount))
	return nil
}

// afterFailedRead answers a failed read of pod's ServiceAccount: a missing
// default one is made again; otherwise the pod is refused.
func (a *Admitter) afterFailedRead(ctx context.Context, pod *corev1.Pod, err error) (api.Object, error) {
	sa := pod.Spec.ServiceAccountName
	var obj api.Object
	if apierrors.IsNotFound(err) && sa == DefaultName {
		if err = a.ensure(ctx, pod.Namespace); err == nil {
			obj, err = a.reg.Get(ctx, serviceAccounts, pod.Namespace, sa)
		}
	}
	if apierrors.IsNotFound(err) {
		err = fmt.Errorf("serviceaccount %q not found", sa)
	}
	if err != nil {
		return nil, apierrors.NewForbidden(pods.GroupResource(), pod.Name,
			fmt.Errorf("error looking up service account %s/%s: %w", pod.Namespace, sa, err))
	}
	return obj, nil
}

// ensure creates ns's default ServiceAccount unless it exists.
func (a *Admitter) ensure(ctx context.Context, ns string) error { return ensureDefault(ctx, a.reg, ns) }

// EnsureAll gives every namespace that is not being deleted its default
// ServiceAccount (namespaces made before the plugin was in place).
func (a *Admitter) EnsureAll(ctx context.Context) error {
	list, err := a.reg.List(ctx, namespaces, "", registry.ListOptions{})
	if err != nil {
		return fmt.Errorf("list namespaces: %w", err)
	}
	for _, o := range list.Items {
		if o.GetDeletionTimestamp() != nil {
			continue
		}
		if err := a.ensure(ctx, o.GetName()); err != nil {
			return fmt.Errorf("default service account of %s: %w", o.GetName(), err)
		}
	}
	return nil
}
