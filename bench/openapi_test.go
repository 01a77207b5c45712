package bench

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

// BenchmarkFirstCallDocuments measures what kubectl downloads before its
// first command against a server it has nothing cached for: aggregated
// discovery (/api, /apis), the OpenAPI v3 index and the documents of the
// core group and apps/v1 (apply or explain of a ConfigMap and a
// Deployment), gzip'd as kubectl asks for them, one request after the
// other. "cold" is the first time after the server started (the documents
// are built then), "warm" the same requests again. Budget: 100 ms.
func BenchmarkFirstCallDocuments(b *testing.B) {
	var cold, warm time.Duration
	var wire, plain int
	for i := 0; i < b.N; i++ {
		s := cluster.StartServer(b)
		c := cluster.NewClient(b, s.Kubeconfig)
		begin := time.Now()
		wire, plain = firstCall(b, c)
		cold += time.Since(begin)
		begin = time.Now()
		firstCall(b, c)
		warm += time.Since(begin)
		s.Stop()
	}
	b.ReportMetric(float64(cold.Microseconds())/1000/float64(b.N), "ms-cold")
	b.ReportMetric(float64(warm.Microseconds())/1000/float64(b.N), "ms-warm")
	b.ReportMetric(float64(wire)/1024, "KiB-gzip")
	b.ReportMetric(float64(plain)/1024, "KiB-plain")
}

// firstCall makes kubectl's first requests and returns the bytes received
// and what they inflate to.
func firstCall(b *testing.B, c *cluster.Client) (wire, plain int) {
	get := func(path, accept string) []byte {
		r := c.DoHeader("GET", path, http.Header{"Accept": {accept}, "Accept-Encoding": {"gzip"}}, nil)
		if r.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", path, r.Code, r.Body)
		}
		body := r.Body
		wire += len(body)
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				b.Fatal(err)
			}
		}
		plain += len(body)
		return body
	}
	get("/api", aggregatedAccept)
	get("/apis", aggregatedAccept)
	var index struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(get("/openapi/v3", "application/json"), &index); err != nil {
		b.Fatal(err)
	}
	for _, gv := range []string{"api/v1", "apis/apps/v1"} {
		get(index.Paths[gv].URL, "application/json")
	}
	return wire, plain
}

const benchDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:IMAGE}]}
`

// BenchmarkIdleMemoryAfterOpenAPI is BenchmarkIdleMemory after the
// server served what uses the schemas: kubectl explain of a Deployment
// and a Pod (the v3 documents of apps/v1 and the core group), a
// server-side apply (the typed merge of every built-in kind) and a
// client-side re-apply (the v2 document, protobuf).
func BenchmarkIdleMemoryAfterOpenAPI(b *testing.B) {
	idle := 60 * time.Second
	if testing.Short() {
		idle = time.Second
	}
	for i := 0; i < b.N; i++ {
		s := cluster.StartServer(b)
		s.MustKubectl("explain", "deployment.spec.strategy")
		s.MustKubectl("explain", "pod.spec.containers")
		for _, args := range [][]string{{"--server-side"}, {"--server-side", "--force-conflicts"}} {
			if _, errOut, err := s.Apply(strings.Replace(benchDeployment, "IMAGE", "1", 1), args...); err != nil {
				b.Fatalf("apply %v: %v %s", args, err, errOut)
			}
		}
		if _, errOut, err := s.Apply(strings.Replace(benchDeployment, "IMAGE", "2", 1)); err != nil {
			b.Fatalf("client-side apply: %v %s", err, errOut)
		}
		time.Sleep(idle)
		rss, anon := procMemory(b, s.PID())
		b.ReportMetric(rss/1024, "VmRSS-MiB")
		b.ReportMetric(anon/1024, "RssAnon-MiB")
		s.Stop()
	}
}
