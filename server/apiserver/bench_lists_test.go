package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// seedPods creates n pods bound round-robin to nodes node-0..node-(nodes-1)
// through the registry, from 32 goroutines (the datastore commits them in
// groups).
func seedPods(b *testing.B, e *testEnv, n, nodes int) {
	b.Helper()
	c := e.api.Registry().Client()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%d", i), Namespace: "default",
					Labels: map[string]string{"app": "bench"}},
					Spec: corev1.PodSpec{NodeName: fmt.Sprintf("node-%d", int(i)%nodes),
						Containers: []corev1.Container{{Name: "c", Image: "registry.lan/app:1"}}}}
				if _, err := c.Create(context.Background(), p); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatalf("seed pods: %v", err)
	}
}

// BenchmarkNodePodsList measures the list an agent makes of its own pods,
// `GET /api/v1/pods?fieldSelector=spec.nodeName=X`, with 30,000 pods on the
// server over 1,000 nodes (-short: 3,000 over 100):
//
//	go test -run '^$' -bench NodePodsList -benchtime 50x ./server/apiserver/
func BenchmarkNodePodsList(b *testing.B) {
	pods, nodes := 30000, 1000
	if testing.Short() {
		pods, nodes = 3000, 100
	}
	e := newTestEnv(b)
	seedPods(b, e, pods, nodes)
	c := benchClient(e, true)
	decodes := api.Decodes()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		node := fmt.Sprintf("node-%d", i%nodes)
		if n := listPods(b, e, c, "?fieldSelector=spec.nodeName%3D"+node); n != pods/nodes {
			b.Fatalf("node %s: got %d pods, want %d", node, n, pods/nodes)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/list")
	b.ReportMetric(float64(api.Decodes()-decodes)/float64(b.N), "decodes/list")
}

// listPods lists pods with query and counts the items.
func listPods(b *testing.B, e *testEnv, c *http.Client, query string) int {
	b.Helper()
	req, _ := http.NewRequest("GET", e.srv.URL+podPath+query, nil)
	req.Header.Set("Authorization", "Bearer admin-token")
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	list := &struct {
		Items []struct{} `json:"items"`
	}{}
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("list: HTTP %d: %s", resp.StatusCode, data)
	}
	if err := jsonUnmarshal(data, list); err != nil {
		b.Fatal(err)
	}
	return len(list.Items)
}

// createPods creates n pods through the API from 32 clients.
func createPods(b *testing.B, e *testEnv, n int) {
	b.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Bool
	for w := 0; w < 32; w++ {
		c := benchClient(e, true)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				if _, err := doReq(e, c, "POST", podPath, manifestBytes("pods", fmt.Sprintf("w-%d", i)), http.StatusCreated); err != nil {
					b.Error(err)
					failed.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		b.FailNow()
	}
}

func waitSeen(b *testing.B, seen *atomic.Int64, want int64) {
	b.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for seen.Load() < want {
		if time.Now().After(deadline) {
			b.Fatalf("watchers saw %d events, want %d", seen.Load(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// doReq makes one request with the admin token and checks the status code;
// safe from any goroutine.
func doReq(e *testEnv, c *http.Client, method, path string, body []byte, want int) ([]byte, error) {
	req, err := http.NewRequest(method, e.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer admin-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: got HTTP %d, want %d: %s", method, path, resp.StatusCode, want, data)
	}
	return data, nil
}

func manifestBytes(res, name string) []byte {
	return []byte(strings.ReplaceAll(manifests[res], "NAME", name))
}
