package apiserver

import (
	"encoding/json"
	"fmt"
	"sort"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
)

// discoveryDocs are the discovery answers, encoded once at start.
type discoveryDocs struct {
	apiVersions []byte            // GET /api
	groupList   []byte            // GET /apis
	groups      map[string][]byte // GET /apis/{group}
	resources   map[string][]byte // GET /api/v1 ("v1"), /apis/{g}/{v} ("g/v")
	aggCore     *smallDoc         // GET /api, aggregated (apidiscovery.k8s.io/v2)
	aggGroups   *smallDoc         // GET /apis, aggregated
}

// Verbs served on collections and subresources.
var (
	resourceVerbs = metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	subVerbs      = map[string]metav1.Verbs{
		"status":   {"get", "patch", "update"},
		"scale":    {"get", "patch", "update"},
		"binding":  {"create"},
		"eviction": {"create"},
		"log":      {"get"},
		// exec, attach and port-forward are upgrades kubectl makes with
		// POST (SPDY) or GET (WebSocket); both are authorized as create.
		"exec":                {"create", "get"},
		"attach":              {"create", "get"},
		"portforward":         {"create", "get"},
		"approval":            {"get", "patch", "update"},
		"ephemeralcontainers": {"get", "patch", "update"},
	}
)

func buildDiscovery(k kindView) (*discoveryDocs, error) {
	d := &discoveryDocs{groups: map[string][]byte{}, resources: map[string][]byte{}}
	var err error
	d.apiVersions, err = json.Marshal(&metav1.APIVersions{
		TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{},
	})
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	list := &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	for _, gv := range k.GroupVersions() {
		if d.resources[gvKey(gv)], err = json.Marshal(resourceList(k, gv)); err != nil {
			return nil, fmt.Errorf("discovery %s: %w", gv, err)
		}
	}
	for _, g := range servedGroups(k.GroupVersions()) {
		if g.name == "" {
			continue
		}
		ag := apiGroup(g)
		list.Groups = append(list.Groups, ag)
		if d.groups[g.name], err = json.Marshal(&ag); err != nil {
			return nil, fmt.Errorf("discovery %s: %w", g.name, err)
		}
	}
	if err := d.addMetricsDiscovery(list); err != nil {
		return nil, err
	}
	if d.groupList, err = json.Marshal(list); err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	return d, d.buildAggregated(k)
}

func gvKey(gv schema.GroupVersion) string { return gv.String() }

func apiGroup(g servedGroup) metav1.APIGroup {
	ag := metav1.APIGroup{TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}, Name: g.name}
	for _, v := range g.versions {
		ag.Versions = append(ag.Versions, metav1.GroupVersionForDiscovery{
			GroupVersion: schema.GroupVersion{Group: g.name, Version: v}.String(), Version: v})
	}
	ag.PreferredVersion = ag.Versions[0]
	return ag
}

// resourceList is the legacy discovery document of one group version:
// every resource, then its subresources as "name/sub" entries.
func resourceList(k kindView, gv schema.GroupVersion) *metav1.APIResourceList {
	list := &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: gv.String(), APIResources: []metav1.APIResource{},
	}
	for _, res := range k.All() {
		if res.GroupVersion() != gv {
			continue
		}
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name: res.Name, SingularName: res.Singular, Namespaced: res.Namespaced, Kind: res.Kind,
			Verbs: resourceVerbs, ShortNames: res.ShortNames, Categories: res.Categories,
		})
		for _, sub := range res.Subresources {
			kind := subresourceKind(res, sub)
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: res.Name + "/" + sub, Namespaced: res.Namespaced,
				Group: kind.Group, Version: kind.Version, Kind: kind.Kind, Verbs: subVerbs[sub],
			})
		}
	}
	sort.SliceStable(list.APIResources, func(i, j int) bool {
		return list.APIResources[i].Name < list.APIResources[j].Name
	})
	return list
}

// subresourceKind is the kind a subresource answers with.
func subresourceKind(res *api.Resource, sub string) schema.GroupVersionKind {
	switch sub {
	case "scale":
		return api.ScaleResource.GroupVersionKind()
	case "binding":
		return api.BindingResource.GroupVersionKind()
	case "eviction":
		return api.EvictionResource.GroupVersionKind()
	case "log":
		return schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	case "exec":
		return schema.GroupVersionKind{Version: "v1", Kind: "PodExecOptions"}
	case "attach":
		return schema.GroupVersionKind{Version: "v1", Kind: "PodAttachOptions"}
	case "portforward":
		return schema.GroupVersionKind{Version: "v1", Kind: "PodPortForwardOptions"}
	}
	return res.GroupVersionKind()
}

// buildAggregated encodes the aggregated discovery documents (one request
// for /api, one for /apis), which kubectl asks for first.
func (d *discoveryDocs) buildAggregated(k kindView) error {
	core := aggregatedList()
	groups := aggregatedList()
	for _, sg := range servedGroups(k.GroupVersions()) {
		g := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: sg.name}}
		for _, v := range sg.versions {
			g.Versions = append(g.Versions, apidiscoveryv2.APIVersionDiscovery{
				Version: v, Resources: aggregatedResources(k, schema.GroupVersion{Group: sg.name, Version: v}),
				Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
			})
		}
		if sg.name == "" {
			core.Items = append(core.Items, g)
		} else {
			groups.Items = append(groups.Items, g)
		}
	}
	groups.Items = append(groups.Items, metricsAggregated())
	coreJSON, err := json.Marshal(core)
	if err != nil {
		return fmt.Errorf("aggregated discovery: %w", err)
	}
	groupsJSON, err := json.Marshal(groups)
	if err != nil {
		return fmt.Errorf("aggregated discovery: %w", err)
	}
	d.aggCore, d.aggGroups = newSmallDoc(coreJSON), newSmallDoc(groupsJSON)
	return nil
}

func aggregatedList() *apidiscoveryv2.APIGroupDiscoveryList {
	return &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"},
		Items:    []apidiscoveryv2.APIGroupDiscovery{},
	}
}

func aggregatedResources(k kindView, gv schema.GroupVersion) []apidiscoveryv2.APIResourceDiscovery {
	var out []apidiscoveryv2.APIResourceDiscovery
	for _, res := range k.All() {
		if res.GroupVersion() != gv {
			continue
		}
		kind := metav1.GroupVersionKind(res.GroupVersionKind())
		scope := apidiscoveryv2.ScopeCluster
		if res.Namespaced {
			scope = apidiscoveryv2.ScopeNamespace
		}
		rd := apidiscoveryv2.APIResourceDiscovery{
			Resource: res.Name, ResponseKind: &kind, Scope: scope, SingularResource: res.Singular,
			Verbs: resourceVerbs, ShortNames: res.ShortNames, Categories: res.Categories,
		}
		for _, sub := range res.Subresources {
			sk := metav1.GroupVersionKind(subresourceKind(res, sub))
			rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{
				Subresource: sub, ResponseKind: &sk, Verbs: subVerbs[sub],
			})
		}
		out = append(out, rd)
	}
	return out
}
