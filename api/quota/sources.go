package quota

import (
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
)

// Lookup finds a served collection by group and plural name.
type Lookup func(gr schema.GroupResource) (*api.Resource, bool)

// Sources lists the collections whose objects the resources named in hard
// are used by, once each, in a stable order.
func Sources(hard corev1.ResourceList, lookup Lookup) []*api.Resource {
	seen := map[schema.GroupResource]bool{}
	var out []*api.Resource
	for name := range hard {
		gr, ok := sourceOf(string(name))
		if !ok || seen[gr] {
			continue
		}
		seen[gr] = true
		if res, ok := lookup(gr); ok {
			out = append(out, res)
		}
	}
	sortResources(out)
	return out
}

// sourceOf says which collection a quota resource name counts.
func sourceOf(name string) (schema.GroupResource, bool) {
	if rest, ok := strings.CutPrefix(name, "count/"); ok {
		res, group, _ := strings.Cut(rest, ".")
		return schema.GroupResource{Group: group, Resource: res}, res != ""
	}
	switch {
	case name == "services" || strings.HasPrefix(name, "services."):
		return schema.GroupResource{Resource: "services"}, true
	case name == "persistentvolumeclaims" || name == "requests.storage" || strings.Contains(name, ".storageclass.storage.k8s.io/"):
		return schema.GroupResource{Resource: "persistentvolumeclaims"}, true
	case name == "secrets" || name == "configmaps" || name == "resourcequotas" || name == "replicationcontrollers":
		return schema.GroupResource{Resource: name}, true
	}
	return schema.GroupResource{Resource: "pods"}, true // pods, compute, hugepages, extended resources
}

func sortResources(rs []*api.Resource) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Group+"/"+rs[i].Name < rs[j].Group+"/"+rs[j].Name })
}

// BuiltIn looks a collection up among the built-in kinds.
func BuiltIn(gr schema.GroupResource) (*api.Resource, bool) {
	for _, r := range api.All() {
		if r.Group == gr.Group && r.Name == gr.Resource {
			return r, true
		}
	}
	return nil, false
}

// UsageFunc is what one object of res uses: Usage, or a memo of it.
type UsageFunc func(res *api.Resource, obj api.Object) corev1.ResourceList

// At is Usage at the time now.
func At(now time.Time) UsageFunc {
	return func(res *api.Resource, obj api.Object) corev1.ResourceList { return Usage(res, obj, now) }
}

// Used sums what objects use of q's hard limits: objects lists a
// collection's objects in q's namespace; those q's scopes leave out do
// not count.
func Used(q *corev1.ResourceQuota, sources []*api.Resource, objects func(*api.Resource) []api.Object, usage UsageFunc) corev1.ResourceList {
	used := Zero(q.Spec.Hard)
	for _, res := range sources {
		for _, obj := range objects(res) {
			if Matches(q, obj) {
				add(used, Limited(q.Spec.Hard, usage(res, obj)))
			}
		}
	}
	return used
}
