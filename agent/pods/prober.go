package pods

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// probe runs one probe once: exec through the runtime, httpGet and
// tcpSocket and grpc on the pod's address (the node's loopback on the host network).
func (w *worker) probe(ctx context.Context, c *corev1.Container, id string, p *corev1.Probe) bool {
	ok, _ := w.probeOutput(ctx, c, id, p)
	return ok
}

// probeOutput is probe with what a failure said (the command's output,
// the HTTP status, the dial error), for the Unhealthy event.
func (w *worker) probeOutput(ctx context.Context, c *corev1.Container, id string, p *corev1.Probe) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(orDefault(p.TimeoutSeconds, 1))*time.Second)
	defer cancel()
	pod, _ := w.snapshot()
	host := w.probeAddr(pod)
	switch {
	case p.Exec != nil:
		res, err := w.m.rt.Exec(ctx, id, p.Exec.Command)
		if err != nil {
			return false, err.Error()
		}
		out := strings.TrimSpace(string(res.Stdout) + string(res.Stderr))
		if res.ExitCode != 0 && out == "" {
			out = fmt.Sprintf("command %q exited with %d", strings.Join(p.Exec.Command, " "), res.ExitCode)
		}
		return res.ExitCode == 0, out
	case p.HTTPGet != nil:
		return httpProbe(ctx, c, p.HTTPGet, host)
	case p.TCPSocket != nil:
		port, err := probePort(c, p.TCPSocket.Port)
		if err != nil {
			return false, err.Error()
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(probeHost(p.TCPSocket.Host, host), port))
		if err != nil {
			return false, err.Error()
		}
		conn.Close()
		return true, ""
	case p.GRPC != nil:
		return grpcProbe(ctx, host, p.GRPC.Port, ptrValue(p.GRPC.Service))
	}
	return false, "probe has no handler (exec, httpGet, tcpSocket or grpc)"
}

func ptrValue[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func httpProbe(ctx context.Context, c *corev1.Container, g *corev1.HTTPGetAction, host string) (bool, string) {
	port, err := probePort(c, g.Port)
	if err != nil {
		return false, err.Error()
	}
	scheme := "http"
	if g.Scheme == corev1.URISchemeHTTPS {
		scheme = "https"
	}
	url := fmt.Sprintf("%s://%s%s", scheme, net.JoinHostPort(probeHost(g.Host, host), port), g.Path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err.Error()
	}
	for _, h := range g.HTTPHeaders {
		req.Header.Add(h.Name, h.Value)
	}
	resp, err := probeClient.Do(req)
	if err != nil {
		return false, err.Error()
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		return false, fmt.Sprintf("HTTP probe failed with statuscode: %d", resp.StatusCode)
	}
	return true, ""
}

// probeClient does not follow redirects off the node; a 3xx is success.
var probeClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

// probeHost is the probe's host, else the pod's address (def).
func probeHost(h, def string) string {
	if h == "" {
		return def
	}
	return h
}

// probePort resolves a number or a named container port.
func probePort(c *corev1.Container, p intstr.IntOrString) (string, error) {
	if p.Type == intstr.Int {
		return strconv.Itoa(int(p.IntVal)), nil
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return strconv.Itoa(int(cp.ContainerPort)), nil
		}
	}
	if n, err := strconv.Atoi(p.StrVal); err == nil {
		return strconv.Itoa(n), nil
	}
	return "", fmt.Errorf("probe port %q: no container port of that name", p.StrVal)
}
