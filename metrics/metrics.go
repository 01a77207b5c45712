// Package metrics holds the server's Prometheus metrics and the registry
// /metrics serves them from. The metrics are package variables (as
// upstream's legacyregistry): the packages that count (apiserver,
// datastore, scheduler, controllers) update them directly, so counting is a
// label lookup and an atomic add, with no interface between.
//
// Names follow upstream where a Kubernetes component has the same metric
// (apiserver_request_total, scheduler_schedule_attempts_total,
// workqueue_depth) so existing dashboards read them; bramble's own parts are
// under bramble_.
package metrics

import (
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server returns the registry of the server process: every metric of this
// package plus the process and Go runtime collectors. It is built on the
// first call: the agent, which shares the binary, never gathers it. The
// metrics count whether or not it is built yet.
var Server = sync.OnceValue(func() *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewGoCollector())
	r.MustRegister(apiMetrics...)
	r.MustRegister(storeMetrics...)
	r.MustRegister(schedMetrics...)
	r.MustRegister(controllerMetrics...)
	r.MustRegister(brokerCollector{}, MQTTSlowClientsDropped)
	return r
})

// Handler serves g in the text exposition format (or what the scraper
// negotiates). Errors from a collector are logged into the response's
// status rather than failing the scrape.
func Handler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// latencyBuckets are upstream apiserver's request-duration buckets,
// trimmed: a Pi's requests take milliseconds to seconds.
var latencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.5, 2, 4, 8, 15, 30, 60}

// fastBuckets are for work that takes microseconds to a second (a
// commit's fsync, one controller sync, one scheduling decision).
var fastBuckets = prometheus.ExponentialBuckets(0.0001, 4, 10) // 100µs .. 26s
