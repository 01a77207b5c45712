package bench

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// BenchmarkRBACMemory measures the server's VmRSS and RssAnon idle, then
// after 1,000 Roles (10 in each of 100 namespaces) and 5,000 RoleBindings
// (50 per namespace) were created through the API, which the RBAC
// authorizer indexes in memory:
//
//	go test -run '^$' -bench RBACMemory -benchtime 1x ./bench/
func BenchmarkRBACMemory(b *testing.B) {
	for i := 0; i < b.N; i++ {
		s := cluster.StartServer(b)
		c := cluster.NewClient(b, s.Kubeconfig)
		time.Sleep(3 * time.Second)
		rss0, anon0 := procMemory(b, s.PID())
		start := time.Now()
		createRBACObjects(b, c)
		took := time.Since(start)
		time.Sleep(5 * time.Second)
		rss, anon := procMemory(b, s.PID())
		b.ReportMetric(rss0/1024, "idle-VmRSS-MiB")
		b.ReportMetric(anon0/1024, "idle-RssAnon-MiB")
		b.ReportMetric(rss/1024, "VmRSS-MiB")
		b.ReportMetric(anon/1024, "RssAnon-MiB")
		b.ReportMetric(6100/took.Seconds(), "creates/s")
		s.Stop()
	}
}

func createRBACObjects(b *testing.B, c *cluster.Client) {
	var bodies []struct{ path, body string }
	add := func(path, body string) { bodies = append(bodies, struct{ path, body string }{path, body}) }
	for ns := 0; ns < 100; ns++ {
		c.Do("POST", "/api/v1/namespaces", "application/json", []byte(fmt.Sprintf(`{"metadata":{"name":"ns-%d"}}`, ns)))
		base := fmt.Sprintf("/apis/rbac.authorization.k8s.io/v1/namespaces/ns-%d/", ns)
		for r := 0; r < 10; r++ {
			add(base+"roles", fmt.Sprintf(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"role-%d"},"rules":[`+
				`{"apiGroups":[""],"resources":["pods","pods/log","services"],"verbs":["get","list","watch"]},`+
				`{"apiGroups":["apps"],"resources":["deployments","deployments/scale"],"verbs":["create","update"]},`+
				`{"apiGroups":[""],"resources":["configmaps"],"resourceNames":["cfg-%d"],"verbs":["get"]}]}`, r, r))
		}
		for rb := 0; rb < 50; rb++ {
			add(base+"rolebindings", fmt.Sprintf(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"rb-%d"},`+
				`"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"role-%d"},"subjects":[`+
				`{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"user-%d"},{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"team-%d"}]}`,
				rb, rb%10, (ns*50+rb)%1000, rb%20))
		}
	}
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(bodies)); i = next.Add(1) - 1 {
				r, err := c.Try("POST", bodies[i].path, map[string][]string{"Content-Type": {"application/json"}}, []byte(bodies[i].body))
				if err != nil || r.Code != 201 {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d of %d creates failed", n, len(bodies))
	}
}
