package apiserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// NodeMetricsFetcher copies the metrics an agent serves at path
// ("/metrics" or "/metrics/cadvisor") to w, asking it over its own
// connection (the server never dials an agent).
type NodeMetricsFetcher interface {
	FetchNodeMetrics(ctx context.Context, node, path string, w io.Writer) error
}

// NodeProxyPaths are the agent paths nodes/{name}/proxy reaches.
var NodeProxyPaths = map[string]bool{"/metrics": true, "/metrics/cadvisor": true}

// parseNodeProxy reads /api/v1/nodes/{name}/proxy[/{path}] (parts is the
// URL path after /api/v1); ok is false for any other path.
func parseNodeProxy(kinds kindLookup, parts []string, method string, q url.Values) (*requestInfo, bool, error) {
	if len(parts) < 3 || parts[0] != "nodes" || parts[2] != "proxy" {
		return nil, false, nil
	}
	res, found := kinds.Lookup("", "v1", "nodes")
	if !found || parts[1] == "" {
		return nil, true, notFoundPath()
	}
	ri := &requestInfo{res: res, name: parts[1], sub: "proxy", path: "/" + strings.Join(parts[3:], "/"), query: q}
	switch method {
	case http.MethodGet, http.MethodHead:
		ri.verb = "get"
	default:
		return nil, true, methodNotAllowedPath()
	}
	return ri, true, nil
}

// nodeProxy answers GET nodes/{name}/proxy/metrics[/cadvisor] with what
// the node's agent reports.
func (a *API) nodeProxy(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	if !NodeProxyPaths[ri.path] {
		return apierrors.NewNotFound(ri.res.GroupResource(), ri.name+"/proxy"+ri.path)
	}
	if _, err := a.reg.Get(r.Context(), ri.res, "", ri.name); err != nil {
		return err
	}
	if a.nodeMetrics == nil {
		return apierrors.NewServiceUnavailable("this server does not reach agents")
	}
	pw := &proxyWriter{w: w}
	err := a.nodeMetrics.FetchNodeMetrics(r.Context(), ri.name, ri.path, pw)
	if err != nil && !pw.started {
		return err
	}
	if err != nil {
		a.log.Debug("node metrics ended with error", "node", ri.name, "err", err)
	}
	pw.start()
	return nil
}

// proxyWriter sends the header with the first bytes, so an agent that
// fails before answering still gets a Status.
type proxyWriter struct {
	w       http.ResponseWriter
	started bool
}

func (p *proxyWriter) start() {
	if !p.started {
		p.started = true
		p.w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		p.w.WriteHeader(http.StatusOK)
	}
}

func (p *proxyWriter) Write(b []byte) (int, error) {
	p.start()
	n, err := p.w.Write(b)
	if err != nil {
		return n, fmt.Errorf("write node metrics: %w", err)
	}
	return n, nil
}
