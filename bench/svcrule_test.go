package bench

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// BenchmarkServiceToRule measures a Service or endpoint write to its rule
// programmed on a node: one real server and one agent in a network
// namespace of its own (the agent's nftables are that namespace's). Per
// sample, the time from the start of the API call to the rule in the
// node's kernel, polled with nft every ~2 ms plus nft's own run time (so
// figures are upper bounds by a few ms): "svc", creating a ClusterIP
// Service until its ClusterIP is in the svc-frontends verdict map; "ep",
// creating an EndpointSlice of a selector-less Service (one new address)
// until a DNAT to that address is in the table. 30 samples of each per
// b.N; p50 and p99 reported. Budget (issue 16): p99 <= 1 s.
//
//	go test -run '^$' -bench ServiceToRule -benchtime 1x ./bench/
func BenchmarkServiceToRule(b *testing.B) {
	cluster.NeedNetworkTools(b)
	br := cluster.NewBridge(b)
	n := br.AddNamespace()
	d := cluster.PrivateContainerd(b)
	s := cluster.StartServerOn(b, br.Addr.String())
	a := cluster.StartAgentIn(b, n, s, d, "bramble-bench-svc", "--token", cluster.JoinToken(b, s), "--node-name", "n1")
	a.WaitReady(b, s, "n1")
	c := cluster.NewClient(b, s.Kubeconfig)
	c.Do("POST", "/api/v1/namespaces/default/services", "application/json",
		[]byte(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"ep"},"spec":{"ports":[{"port":80}]}}`))
	var svc, ep []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range 30 {
			svc = append(svc, serviceToRule(b, c, n.Path, fmt.Sprintf("svc-%d-%d", i, j)))
			ep = append(ep, endpointToRule(b, c, n.Path, i, j))
		}
	}
	b.StopTimer()
	reportQuantiles(b, "svc", svc)
	reportQuantiles(b, "ep", ep)
}

func reportQuantiles(b *testing.B, what string, took []time.Duration) {
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, what+"-p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, what+"-p99-ms")
}

// endpointToRule creates an EndpointSlice of Service ep with one address,
// 10.99.i.j, and waits (10 s at most) until the node's table DNATs to it.
func endpointToRule(b *testing.B, c *cluster.Client, nsPath string, i, j int) time.Duration {
	ip := fmt.Sprintf("10.99.%d.%d", i%256, j+1)
	body := fmt.Sprintf(`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice",`+
		`"metadata":{"name":"ep-%d-%d","labels":{"kubernetes.io/service-name":"ep"}},"addressType":"IPv4",`+
		`"ports":[{"port":8080,"protocol":"TCP"}],"endpoints":[{"addresses":[%q]}]}`, i, j, ip)
	start := time.Now()
	if r := c.Do("POST", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", "application/json", []byte(body)); r.Code != 201 {
		b.Fatalf("create EndpointSlice for %s: HTTP %d %s", ip, r.Code, r.Body)
	}
	return waitNft(b, nsPath, []string{"list", "table", "inet", "bramble"}, ip+":8080", start)
}

// waitNft polls `nft args...` in the namespace at nsPath until its output
// holds want, and returns the time since start; it fails after 10 s.
func waitNft(b *testing.B, nsPath string, args []string, want string, start time.Time) time.Duration {
	for deadline := start.Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		out, _ := exec.Command("nsenter", append([]string{"--net=" + nsPath, "nft"}, args...)...).Output()
		if strings.Contains(string(out), want) {
			return time.Since(start)
		}
	}
	b.Fatalf("%q not in the node's nft %v 10 s after the write", want, args)
	return 0
}

// serviceToRule creates Service name in default and waits (10 s at most)
// until its ClusterIP is in the svc-frontends map of the namespace at
// nsPath.
func serviceToRule(b *testing.B, c *cluster.Client, nsPath, name string) time.Duration {
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":%q},`+
		`"spec":{"ports":[{"port":80,"targetPort":8080}]}}`, name)
	start := time.Now()
	r := c.Do("POST", "/api/v1/namespaces/default/services", "application/json", []byte(body))
	ip, _ := cluster.Field(r.Object(b), "spec", "clusterIP").(string)
	if ip == "" {
		b.Fatalf("create Service %s: no clusterIP in the answer", name)
	}
	return waitNft(b, nsPath, []string{"list", "map", "inet", "bramble", "svc-frontends"}, ip+" . ", start)
}
