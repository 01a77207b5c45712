package rbac

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/server/auth"
)

// benchIndex holds 1,000 Roles (10 in each of 100 namespaces, 4 rules
// each) and 5,000 RoleBindings (50 per namespace, each binding one user
// and one group), plus the default discovery binding.
func benchIndex() *Index {
	x := NewIndex()
	for ns := 0; ns < 100; ns++ {
		namespace := fmt.Sprintf("ns-%d", ns)
		for r := 0; r < 10; r++ {
			x.SetRole(namespace, fmt.Sprintf("role-%d", r), []rbacv1.PolicyRule{
				{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/log", "services"}},
				{Verbs: []string{"create", "update"}, APIGroups: []string{"apps"}, Resources: []string{"deployments", "deployments/scale"}},
				{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{fmt.Sprintf("cfg-%d", r)}},
				{Verbs: []string{"list"}, APIGroups: []string{"batch"}, Resources: []string{"jobs"}},
			})
		}
		for b := 0; b < 50; b++ {
			x.SetBinding(namespace, fmt.Sprintf("rb-%d", b), rbacv1.RoleRef{Kind: "Role", Name: fmt.Sprintf("role-%d", b%10)},
				[]rbacv1.Subject{{Kind: "User", Name: fmt.Sprintf("user-%d", (ns*50+b)%1000)}, {Kind: "Group", Name: fmt.Sprintf("team-%d", b%20)}})
		}
	}
	x.SetRole("", "system:discovery", []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/api/*"}}})
	x.SetBinding("", "system:discovery", rbacv1.RoleRef{Kind: "ClusterRole", Name: "system:discovery"},
		[]rbacv1.Subject{{Kind: "Group", Name: GroupAuthenticated}})
	return x
}

// BenchmarkAuthorize1000Roles5000Bindings times single decisions over the
// index above: allowed and refused, by users with several bindings and
// groups; it reports the 50th and 99th percentile of a decision.
//
//	go test -run '^$' -bench Authorize1000Roles -benchtime 200000x ./server/rbac/
func BenchmarkAuthorize1000Roles5000Bindings(b *testing.B) {
	a := New(benchIndex(), nil)
	verbs := []string{"get", "list", "create", "delete"}
	resources := []string{"pods", "deployments", "configmaps", "secrets", "jobs"}
	rng := rand.New(rand.NewPCG(1, 2))
	type req struct {
		user  *auth.User
		attrs auth.Attributes
	}
	reqs := make([]req, 4096)
	for i := range reqs {
		u := &auth.User{Name: fmt.Sprintf("user-%d", rng.IntN(1000)), Groups: []string{fmt.Sprintf("team-%d", rng.IntN(20)), GroupAuthenticated}}
		reqs[i] = req{u, auth.Attributes{Verb: verbs[rng.IntN(4)], Resource: resources[rng.IntN(5)],
			Namespace: fmt.Sprintf("ns-%d", rng.IntN(100)), Name: fmt.Sprintf("cfg-%d", rng.IntN(10))}}
		if reqs[i].attrs.Resource == "deployments" {
			reqs[i].attrs.Group = "apps"
		}
	}
	times := make([]time.Duration, b.N)
	allowed := 0
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := &reqs[i%len(reqs)]
		start := time.Now()
		err := a.Authorize(ctx, r.user, r.attrs)
		times[i] = time.Since(start)
		if err == nil {
			allowed++
		}
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds()), "p99-ns")
	b.ReportMetric(float64(allowed)/float64(b.N), "allowed")
}

// BenchmarkIndexHeap reports the heap the index of 1,000 Roles and 5,000
// RoleBindings holds (the rules included; in the server they are the
// cached objects' own).
//
//	go test -run '^$' -bench IndexHeap -benchtime 3x ./server/rbac/
func BenchmarkIndexHeap(b *testing.B) {
	var before, after runtime.MemStats
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&before)
		x := benchIndex()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(x)
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MiB")
}
