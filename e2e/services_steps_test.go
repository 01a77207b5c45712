package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// svcClient asks from inside the client pod on nb: nethelper of the pod's
// image, run in the pod's network and mount namespaces, so names go
// through the pod's own /etc/resolv.conf (cluster DNS, search list).
type svcClient struct {
	t                   *testing.T
	pid                 int
	clusterIP, nodePort string
}

// with is c reporting to t (a subtest's failures end the subtest only).
func (c *svcClient) with(t *testing.T) *svcClient {
	sub := *c
	sub.t = t
	return &sub
}

// run is `nethelper args...` in the pod (8 s at most; nethelper gives up
// after 3 s), its trimmed output and whether it succeeded.
func (c *svcClient) run(args ...string) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	cmd := append([]string{"-t", fmt.Sprint(c.pid), "-n", "-m", "nethelper"}, args...)
	out, err := exec.CommandContext(ctx, "nsenter", cmd...).CombinedOutput()
	return strings.TrimSpace(string(out)), err == nil
}

// wait retries `nethelper args...` for up to 30 s until it succeeds and
// check accepts the output, and returns that output; it fails the test
// with the last output otherwise.
func (c *svcClient) wait(what string, check func(string) bool, args ...string) string {
	c.t.Helper()
	var out string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var ok bool
		out, ok = c.run(args...)
		if ok && check(out) {
			return out
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("timed out after 30s waiting for %s (nethelper %s; last output %q)", what, strings.Join(args, " "), out)
		}
	}
}

// answeredBy is a check that a nethelper server named one of want answered.
func answeredBy(want ...string) func(string) bool {
	return func(body string) bool {
		f := strings.Fields(body)
		return len(f) == 2 && slices.Contains(want, f[0])
	}
}

// names: web by its short name, its full name, its ClusterIP from the
// pod, and its NodePort on each node's address from the host.
func (c *svcClient) names(nodes []netip.Addr, web map[string]netip.Addr) {
	replicas := sortedKeys(web)
	for _, url := range []string{"http://web/", "http://web.demo.svc.cluster.local/", "http://" + c.clusterIP + "/"} {
		c.wait("client on nb -> "+url, answeredBy(replicas...), "get", url)
	}
	for _, node := range nodes {
		url := fmt.Sprintf("http://%s:%s/", node, c.nodePort)
		if got := mustGet(c.t, url); !answeredBy(replicas...)(strings.TrimSpace(got)) {
			c.t.Errorf("NodePort from the host at %s: got %q, want an answer of one of %v", url, got, replicas)
		}
	}
}

// spread: 30 requests to http://web/ are answered by all three replicas.
func (c *svcClient) spread(web map[string]netip.Addr) {
	seen := map[string]int{}
	for range 30 {
		body, ok := c.run("get", "http://web/")
		if !ok {
			c.t.Fatalf("GET http://web/ from the client: %s", body)
		}
		seen[strings.Fields(body)[0]]++
	}
	if got, want := sortedKeys(seen), sortedKeys(web); !slices.Equal(got, want) {
		c.t.Errorf("30 requests to http://web/ answered by %v, want all of %v", seen, want)
	}
	c.t.Logf("30 requests to http://web/: %v", seen)
}

// headless: web-headless resolves to the three pods' addresses.
func (c *svcClient) headless(web map[string]netip.Addr) {
	var want []string
	for _, ip := range web {
		want = append(want, ip.String())
	}
	sort.Strings(want)
	c.wait("web-headless to resolve to "+strings.Join(want, " "), func(out string) bool {
		got := strings.Fields(out)
		sort.Strings(got)
		return slices.Equal(got, want)
	}, "lookup", "web-headless")
}

// externalName: ext is a CNAME to the outside name, whose address the
// test's upstream gives.
func (c *svcClient) externalName() {
	c.wait("ext to be a CNAME to "+outsideName, func(out string) bool { return out == outsideName+"." },
		"cname", "ext.demo.svc.cluster.local")
	c.wait("ext to resolve to "+outsideAddr, func(out string) bool { return out == outsideAddr }, "lookup", "ext")
}

// forwarded: a name outside the cluster is answered by the test's own
// upstream, which saw the question.
func (c *svcClient) forwarded(queries *atomic.Int64) {
	before := queries.Load()
	c.wait(outsideName+" to resolve to "+outsideAddr, func(out string) bool { return out == outsideAddr },
		"lookup", outsideName)
	if queries.Load() == before {
		c.t.Errorf("%s resolved but the test's upstream DNS server saw no question", outsideName)
	}
}

// scale: web at 0 replicas refuses a connection to its ClusterIP at once;
// back at 3 it answers again (the time it took is logged).
func (c *svcClient) scale(s *cluster.Server) {
	url := "http://" + c.clusterIP + "/"
	s.MustKubectl("scale", "deployment", "web", "-n", "demo", "--replicas=0")
	c.waitRefused(url)
	start := time.Now()
	out, ok := c.run("get", url)
	took := time.Since(start)
	if ok || !strings.Contains(out, "connection refused") || took > 500*time.Millisecond {
		c.t.Errorf("web at 0 replicas: GET %s gave %q after %v, want connection refused in well under 1 s", url, out, took)
	}
	c.t.Logf("web at 0 replicas: refused after %v (nsenter and nethelper start included)", took)
	start = time.Now()
	s.MustKubectl("scale", "deployment", "web", "-n", "demo", "--replicas=3")
	c.wait("web scaled back to 3 to answer", func(out string) bool { return strings.HasPrefix(out, "web-") }, "get", url)
	c.t.Logf("web scaled 0 -> 3: answering %v after the scale", time.Since(start).Round(10*time.Millisecond))
}

// waitRefused waits until a GET of url is refused.
func (c *svcClient) waitRefused(url string) {
	c.t.Helper()
	refused := func(out string) bool { return strings.Contains(out, "connection refused") }
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, ok := c.run("get", url)
		if !ok && refused(out) {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("GET %s not refused 30s after web was scaled to 0 (last: %q)", url, out)
		}
	}
}

// offline, with the server stopped: near (its endpoint on nb, the
// client's node) and web still resolve and answer.
func (c *svcClient) offline(nearIP string) {
	c.t.Helper()
	c.wait("near to resolve to its ClusterIP "+nearIP+" offline",
		func(out string) bool { return out == nearIP }, "lookup", "near.demo.svc.cluster.local")
	c.wait("http://near/ to answer offline", answeredBy("near"), "get", "http://near/")
	c.wait("http://web/ to answer offline", func(out string) bool { return strings.HasPrefix(out, "web-") }, "get", "http://web/")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
