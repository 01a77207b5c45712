package pods

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// probe runs one probe once: exec through the runtime, httpGet and
// tcpSocket on the pod's address (the node's loopback on the host network).
func (w *worker) probe(ctx context.Context, c *corev1.Container, id string, p *corev1.Probe) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(orDefault(p.TimeoutSeconds, 1))*time.Second)
	defer cancel()
	pod, _ := w.snapshot()
	host := w.probeAddr(pod)
	switch {
	case p.Exec != nil:
		res, err := w.m.rt.Exec(ctx, id, p.Exec.Command)
		return err == nil && res.ExitCode == 0
	case p.HTTPGet != nil:
		return httpProbe(ctx, c, p.HTTPGet, host)
	case p.TCPSocket != nil:
		port, err := probePort(c, p.TCPSocket.Port)
		if err != nil {
			return false
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(probeHost(p.TCPSocket.Host, host), port))
		if err != nil {
			return false
		}
		conn.Close()
		return true
	}
	return false // gRPC probes are not supported
}

func httpProbe(ctx context.Context, c *corev1.Container, g *corev1.HTTPGetAction, host string) bool {
	port, err := probePort(c, g.Port)
	if err != nil {
		return false
	}
	scheme := "http"
	if g.Scheme == corev1.URISchemeHTTPS {
		scheme = "https"
	}
	url := fmt.Sprintf("%s://%s%s", scheme, net.JoinHostPort(probeHost(g.Host, host), port), g.Path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	for _, h := range g.HTTPHeaders {
		req.Header.Add(h.Name, h.Value)
	}
	resp, err := probeClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode >= 200 && resp.StatusCode < 400
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
