// Package api describes the resources bramble serves, in the Kubernetes JSON
// shape: which kinds exist, where they are stored, how they are defaulted,
// validated, selected and printed. It knows nothing of HTTP or storage.
package api

import (
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Object is a typed API object: runtime.Object with object metadata.
type Object interface {
	runtime.Object
	metav1.Object
}

// Resource describes one served resource (a REST collection).
type Resource struct {
	Group      string // "" for the core group
	Version    string
	Name       string // plural, as in the URL: "pods"
	Singular   string
	Kind       string
	Namespaced bool
	ShortNames []string
	Categories []string
	// Subresources served under /{name}/{sub}: "status", "scale", "binding", "log",
	// "exec", "attach", "portforward".
	Subresources []string
	// Generation is true when metadata.generation counts spec changes.
	Generation bool
	// Schema is the OpenAPI v3 schema (JSON) of a kind added at run time,
	// a CustomResourceDefinition version's for example. It may refer to the
	// built-in definitions ("#/components/schemas/io.k8s.apimachinery.pkg.
	// apis.meta.v1.ObjectMeta"). Without one such a kind is served with a
	// permissive schema, and server-side apply merges its lists whole.
	// Built-in kinds take theirs from api/openapi (generated from the Go
	// types) and leave it nil.
	Schema []byte
	// StoredOnly, when set, says what bramble does not yet do with the
	// kind's objects (they are stored, validated and served, but nothing
	// acts on them, or acts on only part of them). Clients creating one
	// get it as a Warning header; docs/API.md says the same.
	StoredOnly string
	// Storage, when set, is the Resource this one's objects are stored as
	// (versions.go); r.conv converts between the two.
	Storage *Resource
	conv    *conversion

	newObject func() Object
	newList   func() runtime.Object
	// unstructured marks a kind known only at run time (NewUnstructured).
	unstructured bool
	// custom is a CustomResourceDefinition version's schema and printing.
	custom *CustomKind
}

// Strategy is what the registry does to the kind's objects between
// decoding and storing: typed kinds follow the api package's rules
// (defaults.go, strategy.go, validate*.go), unstructured kinds the
// generic ones of unstructured.go.
func (r *Resource) Strategy() Strategy {
	if r.unstructured {
		return unstructuredStrategy{c: r.custom}
	}
	return typedStrategy{}
}

// Unstructured reports whether the kind's objects are
// *unstructured.Unstructured (a kind added at run time) rather than Go types.
func (r *Resource) Unstructured() bool { return r.unstructured }

// GroupKind of the resource.
func (r *Resource) GroupKind() schema.GroupKind {
	return schema.GroupKind{Group: r.Group, Kind: r.Kind}
}

// New returns an empty typed object of this resource's kind.
func (r *Resource) New() Object { return r.newObject() }

// NewList returns an empty typed list of this resource's kind.
func (r *Resource) NewList() runtime.Object { return r.newList() }

// GroupVersion of the resource.
func (r *Resource) GroupVersion() schema.GroupVersion {
	return schema.GroupVersion{Group: r.Group, Version: r.Version}
}

// APIVersion is the apiVersion field value: "v1" or "apps/v1".
func (r *Resource) APIVersion() string { return r.GroupVersion().String() }

// GroupResource names the resource in error messages ("deployments.apps").
func (r *Resource) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: r.Group, Resource: r.Name}
}

// HasSubresource reports whether sub is served.
func (r *Resource) HasSubresource(sub string) bool {
	for _, s := range r.Subresources {
		if s == sub {
			return true
		}
	}
	return false
}

// Prefix is the datastore key prefix for the resource's objects in namespace
// ("" for all namespaces, or for cluster-scoped resources). It ends in "/".
func (r *Resource) Prefix(namespace string) string {
	if r.Storage != nil {
		return r.Storage.Prefix(namespace)
	}
	group := r.Group
	if group == "" {
		group = "core"
	}
	p := "/registry/" + group + "/" + r.Name + "/"
	if r.Namespaced && namespace != "" {
		p += namespace + "/"
	}
	return p
}

// Key is the datastore key of one object.
func (r *Resource) Key(namespace, name string) string {
	if !r.Namespaced {
		namespace = ""
	}
	return r.keyIn(namespace, name)
}

// keyIn is Prefix(namespace) + name, made in one allocation: every write
// and every object the cache takes names its key.
func (r *Resource) keyIn(namespace, name string) string {
	if r.Storage != nil {
		return r.Storage.keyIn(namespace, name)
	}
	group := r.Group
	if group == "" {
		group = "core"
	}
	if r.Namespaced && namespace != "" {
		return "/registry/" + group + "/" + r.Name + "/" + namespace + "/" + name
	}
	return "/registry/" + group + "/" + r.Name + "/" + name
}

var resources = []*Resource{
	{Version: "v1", Name: "namespaces", Singular: "namespace", Kind: "Namespace", ShortNames: []string{"ns"},
		Subresources: []string{"status"},
		newObject:    func() Object { return &corev1.Namespace{} }, newList: func() runtime.Object { return &corev1.NamespaceList{} }},
	{Version: "v1", Name: "nodes", Singular: "node", Kind: "Node", ShortNames: []string{"no"},
		Subresources: []string{"status"},
		newObject:    func() Object { return &corev1.Node{} }, newList: func() runtime.Object { return &corev1.NodeList{} }},
	{Version: "v1", Name: "pods", Singular: "pod", Kind: "Pod", Namespaced: true, ShortNames: []string{"po"},
		Categories: []string{"all"}, Subresources: []string{"status", "binding", "eviction", "log", "exec", "attach", "portforward",
			SubresourceEphemeral},
		newObject: func() Object { return &corev1.Pod{} }, newList: func() runtime.Object { return &corev1.PodList{} }},
	{Version: "v1", Name: "configmaps", Singular: "configmap", Kind: "ConfigMap", Namespaced: true, ShortNames: []string{"cm"},
		newObject: func() Object { return &corev1.ConfigMap{} }, newList: func() runtime.Object { return &corev1.ConfigMapList{} }},
	{Version: "v1", Name: "secrets", Singular: "secret", Kind: "Secret", Namespaced: true,
		newObject: func() Object { return &corev1.Secret{} }, newList: func() runtime.Object { return &corev1.SecretList{} }},
	{Version: "v1", Name: "events", Singular: "event", Kind: "Event", Namespaced: true, ShortNames: []string{"ev"},
		newObject: func() Object { return &corev1.Event{} }, newList: func() runtime.Object { return &corev1.EventList{} }},
	{Group: "apps", Version: "v1", Name: "deployments", Singular: "deployment", Kind: "Deployment", Namespaced: true,
		ShortNames: []string{"deploy"}, Categories: []string{"all"}, Subresources: []string{"status", "scale"}, Generation: true,
		newObject: func() Object { return &appsv1.Deployment{} }, newList: func() runtime.Object { return &appsv1.DeploymentList{} }},
	{Group: "apps", Version: "v1", Name: "replicasets", Singular: "replicaset", Kind: "ReplicaSet", Namespaced: true,
		ShortNames: []string{"rs"}, Categories: []string{"all"}, Subresources: []string{"status", "scale"}, Generation: true,
		newObject: func() Object { return &appsv1.ReplicaSet{} }, newList: func() runtime.Object { return &appsv1.ReplicaSetList{} }},
	{Group: "apps", Version: "v1", Name: "daemonsets", Singular: "daemonset", Kind: "DaemonSet", Namespaced: true,
		ShortNames: []string{"ds"}, Categories: []string{"all"}, Subresources: []string{"status"}, Generation: true,
		newObject: func() Object { return &appsv1.DaemonSet{} }, newList: func() runtime.Object { return &appsv1.DaemonSetList{} }},
	{Group: "batch", Version: "v1", Name: "jobs", Singular: "job", Kind: "Job", Namespaced: true,
		Categories: []string{"all"}, Subresources: []string{"status"}, Generation: true,
		newObject: func() Object { return &batchv1.Job{} }, newList: func() runtime.Object { return &batchv1.JobList{} }},
	{Group: "coordination.k8s.io", Version: "v1", Name: "leases", Singular: "lease", Kind: "Lease", Namespaced: true,
		newObject: func() Object { return &coordinationv1.Lease{} }, newList: func() runtime.Object { return &coordinationv1.LeaseList{} }},
}

// All returns every served resource.
func All() []*Resource { return resources }

// Lookup finds a resource by group, version and plural name.
func Lookup(group, version, name string) (*Resource, bool) {
	for _, r := range resources {
		if r.Group == group && r.Version == version && r.Name == name {
			return r, true
		}
	}
	return nil, false
}

// ByKind finds a resource by group and kind.
func ByKind(group, kind string) (*Resource, bool) {
	for _, r := range resources {
		if r.Group == group && r.Kind == kind {
			return r, true
		}
	}
	return nil, false
}

// GroupVersions lists the served group versions, core ("v1") first, then
// the named groups in name order.
func GroupVersions() []schema.GroupVersion {
	seen := map[schema.GroupVersion]bool{}
	var out []schema.GroupVersion
	for _, r := range resources {
		gv := r.GroupVersion()
		if !seen[gv] {
			seen[gv] = true
			out = append(out, gv)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i].Group == "") != (out[j].Group == "") {
			return out[i].Group == ""
		}
		return strings.Compare(out[i].Group, out[j].Group) < 0
	})
	return out
}

// MustLookup is Lookup for resources the caller knows are built in; it
// panics (at package initialisation, where it is used) when one is not.
func MustLookup(group, version, name string) *Resource {
	r, ok := Lookup(group, version, name)
	if !ok {
		panic("api has no resource " + group + "/" + version + " " + name)
	}
	return r
}
