package api

import (
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// Scheme returns the scheme that knows every kind bramble serves or answers
// with: the served resources and their lists, autoscaling/v1 Scale, and the
// meta types (Status, DeleteOptions, WatchEvent in every served group
// version; Table and PartialObjectMetadata in meta.k8s.io/v1). It is built
// on the first call, from what the kinds' init functions queued with
// addLater: the agent, which shares the binary but never encodes or decodes
// through it, does not pay for it (some 300 KB of heap).
var Scheme = sync.OnceValue(newScheme)

// schemeAdds are the kinds' registrations in the order their init functions
// made them; schemeBuilt says newScheme has applied them, after which a
// late one would be lost.
var (
	schemeAdds  []func(*runtime.Scheme)
	schemeBuilt bool
)

// addLater queues f to be applied to the Scheme when it is built. Only init
// functions call it, so no lock is needed.
func addLater(f func(*runtime.Scheme)) {
	if schemeBuilt {
		panic("api: a kind registered after the Scheme was built")
	}
	schemeAdds = append(schemeAdds, f)
}

func newScheme() *runtime.Scheme {
	schemeBuilt = true
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme,
		coordinationv1.AddToScheme, autoscalingv1.AddToScheme, metav1.AddMetaToScheme,
		discoveryv1.AddToScheme,
	} {
		utilruntime.Must(add(s))
	}
	for _, gv := range []schema.GroupVersion{
		{Version: "v1"}, appsv1.SchemeGroupVersion, batchv1.SchemeGroupVersion,
		coordinationv1.SchemeGroupVersion, autoscalingv1.SchemeGroupVersion,
		discoveryv1.SchemeGroupVersion,
	} {
		metav1.AddToGroupVersion(s, gv)
	}
	for _, add := range schemeAdds {
		add(s)
	}
	return s
}

// ScaleResource describes the autoscaling/v1 Scale that the "scale"
// subresource of Deployments and ReplicaSets reads and writes. It is not a
// served collection (All does not list it); it lets DecodeJSON and friends
// decode Scale bodies.
var ScaleResource = &Resource{
	Group: "autoscaling", Version: "v1", Name: "scale", Singular: "scale", Kind: "Scale", Namespaced: true,
	newObject: func() Object { return &autoscalingv1.Scale{} },
	newList:   func() runtime.Object { return &metav1.List{} },
}

// BindingResource describes the core/v1 Binding posted to pods/binding. Like
// ScaleResource it is for decoding only.
var BindingResource = &Resource{
	Version: "v1", Name: "bindings", Singular: "binding", Kind: "Binding", Namespaced: true,
	newObject: func() Object { return &corev1.Binding{} },
	newList:   func() runtime.Object { return &metav1.List{} },
}

// GroupVersionKind of the resource's objects.
func (r *Resource) GroupVersionKind() schema.GroupVersionKind {
	return r.GroupVersion().WithKind(r.Kind)
}
