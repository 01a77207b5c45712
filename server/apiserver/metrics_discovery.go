package apiserver

import (
	"encoding/json"
	"fmt"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The metrics API in discovery, legacy and aggregated, as upstream's
// metrics-server registers it: nodes and pods, get and list.
var metricsVerbs = metav1.Verbs{"get", "list"}

var metricsGroup = servedGroup{name: "metrics.k8s.io", versions: []string{"v1beta1"}}

// addMetricsDiscovery puts the metrics group into the legacy documents.
func (d *discoveryDocs) addMetricsDiscovery(list *metav1.APIGroupList) error {
	ag := apiGroup(metricsGroup)
	list.Groups = append(list.Groups, ag)
	var err error
	if d.groups[metricsGroup.name], err = json.Marshal(&ag); err != nil {
		return fmt.Errorf("discovery %s: %w", metricsGroup.name, err)
	}
	res := &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: MetricsGroupVersion, APIResources: []metav1.APIResource{
			{Name: "nodes", SingularName: "", Namespaced: false, Kind: "NodeMetrics", Verbs: metricsVerbs},
			{Name: "pods", SingularName: "", Namespaced: true, Kind: "PodMetrics", Verbs: metricsVerbs}}}
	if d.resources[MetricsGroupVersion], err = json.Marshal(res); err != nil {
		return fmt.Errorf("discovery %s: %w", MetricsGroupVersion, err)
	}
	return nil
}

// metricsAggregated is the metrics group's aggregated discovery entry.
func metricsAggregated() apidiscoveryv2.APIGroupDiscovery {
	kind := func(k string) *metav1.GroupVersionKind {
		return &metav1.GroupVersionKind{Group: metricsGroup.name, Version: "v1beta1", Kind: k}
	}
	return apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: metricsGroup.name},
		Versions: []apidiscoveryv2.APIVersionDiscovery{{Version: "v1beta1", Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
			Resources: []apidiscoveryv2.APIResourceDiscovery{
				{Resource: "nodes", ResponseKind: kind("NodeMetrics"), Scope: apidiscoveryv2.ScopeCluster, Verbs: metricsVerbs},
				{Resource: "pods", ResponseKind: kind("PodMetrics"), Scope: apidiscoveryv2.ScopeNamespace, Verbs: metricsVerbs}}}}}
}
