package apiserver

import (
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// servedGroup is one API group with its served versions, the preferred
// one first.
type servedGroup struct {
	name     string
	versions []string
}

// servedGroups gathers the versions of each group, in the order the
// groups first appear in gvs, each group's versions ordered as upstream
// prefers them (v2 before v1 before v1beta1 before v1alpha1), so a group
// served in two versions is one group in discovery with its newest stable
// version preferred.
func servedGroups(gvs []schema.GroupVersion) []servedGroup {
	var out []servedGroup
	at := map[string]int{}
	for _, gv := range gvs {
		i, ok := at[gv.Group]
		if !ok {
			i = len(out)
			at[gv.Group] = i
			out = append(out, servedGroup{name: gv.Group})
		}
		out[i].versions = append(out[i].versions, gv.Version)
	}
	for i := range out {
		vs := out[i].versions
		sort.SliceStable(vs, func(a, b int) bool { return version.CompareKubeAwareVersionStrings(vs[a], vs[b]) > 0 })
	}
	return out
}
