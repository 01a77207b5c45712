package apiserver

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/server/rbac"
)

const testMetricsToken = "metrics-token-0123456789"

// agentMetrics stands in for the agents: it answers with one line naming
// what was asked.
type agentMetrics struct{}

func (agentMetrics) FetchNodeMetrics(_ context.Context, node, path string, w io.Writer) error {
	_, err := io.WriteString(w, "asked{node=\""+node+"\",path=\""+path+"\"} 1\n")
	return err
}

func newMetricsEnv(t *testing.T) *testEnv {
	return newTestEnv(t, func(c *APIConfig) {
		c.Authz = rbac.New(rbac.NewIndex(), nil) // admins (system:masters) only
		c.MetricsToken = testMetricsToken
		c.NodeMetrics = agentMetrics{}
	})
}

// TestMetricsEndpoint: /metrics counts requests by verb and resource and
// is readable by admin and the metrics token, not by a viewer; the token
// reads nothing else.
func TestMetricsEndpoint(t *testing.T) {
	e := newMetricsEnv(t)
	e.do(req{method: "GET", path: "/api/v1/namespaces"}).must(t, http.StatusOK)
	body := string(e.do(req{method: "GET", path: "/metrics"}).must(t, http.StatusOK).body)
	for _, want := range []string{
		`apiserver_request_total{code="200",group="",resource="namespaces",scope="cluster",subresource="",verb="list",version="v1"}`,
		`apiserver_request_duration_seconds_bucket{group="",resource="namespaces",scope="cluster",subresource="",verb="list",version="v1",le="+Inf"}`,
		"bramble_datastore_fsync_duration_seconds_count", "process_resident_memory_bytes", "go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	e.do(req{method: "GET", path: "/metrics", token: testMetricsToken}).must(t, http.StatusOK)
	e.do(req{method: "GET", path: "/metrics", token: "viewer-token"}).must(t, http.StatusForbidden)
	e.do(req{method: "GET", path: "/metrics", token: "none"}).must(t, http.StatusUnauthorized)
	e.do(req{method: "GET", path: "/api/v1/namespaces", token: testMetricsToken}).must(t, http.StatusUnauthorized)
	e.do(req{method: "GET", path: "/api/v1/nodes/x/proxy/metrics", token: testMetricsToken}).must(t, http.StatusUnauthorized)
	e.do(req{method: "POST", path: "/metrics", token: testMetricsToken}).must(t, http.StatusMethodNotAllowed)
}

// TestNodeProxyMetrics: nodes/{name}/proxy reaches the agent's two metrics
// paths for admin; viewers are refused, other paths are 404, writes 405.
func TestNodeProxyMetrics(t *testing.T) {
	e := newMetricsEnv(t)
	e.do(req{method: "POST", path: "/api/v1/nodes", body: manifest(t, "nodes", "pi-1")}).must(t, http.StatusCreated)
	for _, p := range []string{"/metrics", "/metrics/cadvisor"} {
		r := e.do(req{method: "GET", path: "/api/v1/nodes/pi-1/proxy" + p}).must(t, http.StatusOK)
		if want := `asked{node="pi-1",path="` + p + `"} 1`; strings.TrimSpace(string(r.body)) != want {
			t.Errorf("proxy%s: got %q, want %q", p, r.body, want)
		}
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
			t.Errorf("proxy%s: Content-Type %q", p, ct)
		}
	}
	e.do(req{method: "GET", path: "/api/v1/nodes/pi-1/proxy/metrics", token: "viewer-token"}).must(t, http.StatusForbidden)
	e.do(req{method: "GET", path: "/api/v1/nodes/pi-1/proxy/stats/summary"}).must(t, http.StatusNotFound)
	e.do(req{method: "GET", path: "/api/v1/nodes/pi-2/proxy/metrics"}).must(t, http.StatusNotFound)
	e.do(req{method: "POST", path: "/api/v1/nodes/pi-1/proxy/metrics"}).must(t, http.StatusMethodNotAllowed)
	body := string(e.do(req{method: "GET", path: "/metrics"}).must(t, http.StatusOK).body)
	if !strings.Contains(body, `apiserver_request_total{code="200",group="",resource="nodes",scope="resource",subresource="proxy",verb="get",version="v1"}`) {
		t.Errorf("/metrics does not count the proxy requests:\n%s", grepLines(body, "apiserver_request_total"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
