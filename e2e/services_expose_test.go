package e2e

import (
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// expose: `kubectl expose deployment web` with the oldest and the newest
// kubectl we support makes a Service (selector and ports taken from the
// Deployment by kubectl) whose Endpoints and EndpointSlice list the three
// replicas and which answers from the client pod by name at its port.
func (c *svcClient) expose(s *cluster.Server, web map[string]netip.Addr) {
	var want []string
	for _, ip := range web {
		want = append(want, ip.String())
	}
	sort.Strings(want)
	for _, minor := range []int{27, 33} {
		name, port := fmt.Sprintf("web-%d", minor), 8000+minor
		bin := fmt.Sprintf("/usr/lib/google-cloud-sdk/bin/kubectl.1.%d", minor)
		out, errOut, err := s.KubectlWith(bin, s.Kubeconfig, "", "expose", "deployment", "web", "-n", "demo",
			"--name", name, "--port", fmt.Sprint(port), "--target-port", "8080")
		if err != nil || !strings.Contains(out, "exposed") {
			c.t.Fatalf("kubectl 1.%d expose deployment web: %v\n%s%s", minor, err, out, errOut)
		}
		c.waitAddresses(s, "endpoints", name, "{.subsets[*].addresses[*].ip}", want)
		c.waitAddresses(s, "endpointslices", "-l=kubernetes.io/service-name="+name, "{.items[*].endpoints[*].addresses[*]}", want)
		url := fmt.Sprintf("http://%s:%d/", name, port)
		c.wait("client on nb -> "+url, answeredBy(sortedKeys(web)...), "get", url)
	}
}

// waitAddresses waits up to 30 s until kubectl get kind what -o jsonpath
// lists exactly the addresses want.
func (c *svcClient) waitAddresses(s *cluster.Server, kind, what, path string, want []string) {
	c.t.Helper()
	var got []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		got = strings.Fields(s.MustKubectl("get", kind, what, "-n", "demo", "-o", "jsonpath="+path))
		sort.Strings(got)
		if slices.Equal(got, want) {
			return
		}
	}
	c.t.Fatalf("%s %s: got addresses %v after 30 s, want %v", kind, what, got, want)
}
