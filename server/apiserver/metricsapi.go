package apiserver

import (
	"context"
	"net/http"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/registry"
)

// The metrics API (metrics.k8s.io/v1beta1 nodes and pods) is served from
// the usage the agents' heartbeats carry, which the node status monitor
// keeps in memory: like upstream's aggregated metrics-server, it is no
// kind of the registry and nothing of it is stored (docs/API.md).

// UsageSource gives the latest usage each node reported.
type UsageSource interface {
	NodeUsage() map[string]ReceivedUsage
}

// ReceivedUsage is a node's usage and when the server received it.
type ReceivedUsage struct {
	At    time.Time
	Usage *mqtt.Usage
}

func (u ReceivedUsage) window() time.Duration {
	return time.Duration(u.Usage.WindowSeconds) * time.Second
}

// SetUsageSource makes the metrics API serve src's usage; until it is
// called the API answers 503.
func (a *API) SetUsageSource(src UsageSource) { a.usage.Store(&src) }

const metricsPrefix = "/apis/" + MetricsGroupVersion + "/"

var (
	nodesRes = api.MustLookup("", "v1", "nodes")
	podsRes  = api.MustLookup("", "v1", "pods")
)

// metricsRequest parses a metrics resource path: nodes[/{name}], pods[/{name}]
// or namespaces/{ns}/pods[/{name}].
func metricsRequest(r *http.Request) (*requestInfo, error) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, metricsPrefix), "/")
	ri := &requestInfo{query: r.URL.Query()}
	ri.namespace, parts = splitNamespace(parts)
	switch {
	case len(parts) == 0 || len(parts) > 2 || (parts[0] != "nodes" && parts[0] != "pods"):
		return nil, notFoundPath()
	case parts[0] == "nodes" && ri.namespace != "", len(parts) == 2 && parts[1] == "":
		return nil, notFoundPath()
	case r.Method != http.MethodGet:
		return nil, methodNotAllowedPath()
	}
	ri.res = nodesRes
	if parts[0] == "pods" {
		ri.res = podsRes
	}
	ri.verb = "list"
	if len(parts) == 2 {
		ri.name, ri.verb = parts[1], "get"
	}
	return ri, nil
}

// serveMetrics authorizes and answers one metrics request.
func (a *API) serveMetricsAPI(w http.ResponseWriter, r *http.Request, user *auth.User) {
	ri, err := metricsRequest(r)
	if err == nil {
		ri.user = user
		attrs := auth.Attributes{Verb: ri.verb, Group: "metrics.k8s.io", Resource: ri.res.Name,
			Namespace: ri.namespace, Name: ri.name}
		err = a.authorize(r.Context(), ri, attrs)
	}
	if err == nil {
		err = a.answerMetrics(w, r, ri)
	}
	if err != nil {
		a.writeError(w, r, err)
	}
}

func (a *API) answerMetrics(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	src := a.usage.Load()
	if src == nil {
		return apierrors.NewServiceUnavailable("the metrics API has no node usage source on this server")
	}
	usage := (*src).NodeUsage()
	lo := registry.ListOptions{}
	var err error
	if lo.Labels, err = api.ParseLabelSelector(ri.query.Get("labelSelector")); err != nil {
		return badRequest("labelSelector %q: %v", ri.query.Get("labelSelector"), err)
	}
	if ri.res == nodesRes {
		return a.answerNodeMetrics(r.Context(), w, ri, usage, lo)
	}
	return a.answerPodMetrics(r.Context(), w, ri, usage, lo)
}

func metricsNotFound(resource, name string) error {
	return apierrors.NewNotFound(schema.GroupResource{Group: "metrics.k8s.io", Resource: resource}, name)
}

func (a *API) answerNodeMetrics(ctx context.Context, w http.ResponseWriter, ri *requestInfo, usage map[string]ReceivedUsage, lo registry.ListOptions) error {
	if ri.name != "" {
		u, ok := usage[ri.name]
		node, err := a.reg.Get(ctx, nodesRes, "", ri.name)
		if !ok || err != nil {
			return metricsNotFound("nodes", ri.name)
		}
		writeJSON(w, http.StatusOK, nodeMetrics(node, u))
		return nil
	}
	nodes, err := a.reg.List(ctx, nodesRes, "", lo)
	if err != nil {
		return err
	}
	list := NodeMetricsList{Items: []NodeMetrics{}}
	list.Kind, list.APIVersion = "NodeMetricsList", MetricsGroupVersion
	for _, n := range nodes.Items {
		if u, ok := usage[n.GetName()]; ok {
			list.Items = append(list.Items, nodeMetrics(n, u))
		}
	}
	writeJSON(w, http.StatusOK, &list)
	return nil
}
