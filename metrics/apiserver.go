package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// requestLabels are upstream's labels of apiserver_request_total without
// dry_run and component (bramble has one API server).
var requestLabels = []string{"verb", "group", "version", "resource", "subresource", "scope"}

var (
	apiRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "apiserver_request_total",
		Help: "API requests by verb, resource, scope and HTTP response code.",
	}, append(requestLabels[:len(requestLabels):len(requestLabels)], "code"))
	apiDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "apiserver_request_duration_seconds",
		Help:    "API request latency by verb, resource and scope; long-running requests (watches, followed logs) are left out.",
		Buckets: latencyBuckets,
	}, requestLabels)
	apiLongRunning = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "apiserver_longrunning_requests",
		Help: "Open long-running requests (watches, followed logs, proxies) by verb and resource.",
	}, requestLabels)
	apiMetrics = []prometheus.Collector{apiRequests, apiDuration, apiLongRunning}
)

// Request names one API request for the request metrics. Resource is empty
// for a non-resource path; Scope is "cluster", "namespace" or "resource"
// as upstream.
type Request struct {
	Verb, Group, Version, Resource, Subresource, Scope string
}

// ObserveRequest counts one finished request and, unless it was
// long-running, its latency.
func ObserveRequest(r *Request, code int, seconds float64, longRunning bool) {
	apiRequests.WithLabelValues(r.Verb, r.Group, r.Version, r.Resource, r.Subresource, r.Scope, codeText(code)).Inc()
	if !longRunning {
		apiDuration.WithLabelValues(r.Verb, r.Group, r.Version, r.Resource, r.Subresource, r.Scope).Observe(seconds)
	}
}

// LongRunning counts r as open until the returned func runs.
func LongRunning(r *Request) func() {
	g := apiLongRunning.WithLabelValues(r.Verb, r.Group, r.Version, r.Resource, r.Subresource, r.Scope)
	g.Inc()
	return g.Dec
}

// codes holds the text of every HTTP status code so labelling a request
// does not format an integer.
var codes = func() []string {
	c := make([]string, 600)
	for i := range c {
		c[i] = strconv.Itoa(i)
	}
	return c
}()

func codeText(code int) string {
	if code >= 0 && code < len(codes) {
		return codes[code]
	}
	return strconv.Itoa(code)
}
