package apiserver

import (
	"fmt"
	"net/http"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/rbac"
)

// rbacBenchAuthn adds, to the test tokens, "rbac-token": user-7, in
// team-3, not in system:masters, so RBAC decides every request it makes.
type rbacBenchAuthn struct{ tokenAuthn }

func (a rbacBenchAuthn) Authenticate(r *http.Request) (*auth.User, error) {
	if r.Header.Get("Authorization") == "Bearer rbac-token" {
		return &auth.User{Name: "user-7", Groups: []string{"team-3"}}, nil
	}
	return a.tokenAuthn.Authenticate(r)
}

// BenchmarkCreateConfigMaps32ClientsRBAC is BenchmarkCreateConfigMaps32Clients
// by a user RBAC authorizes among 1,000 Roles and 5,000 RoleBindings (10
// and 50 in each of 100 namespaces; user-7 may create ConfigMaps in
// default through one more RoleBinding):
//
//	go test -run XXX -bench 'CreateConfigMaps32Clients' -benchtime 1000x ./server/apiserver/
func BenchmarkCreateConfigMaps32ClientsRBAC(b *testing.B) {
	x := rbac.NewIndex()
	rule := []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods", "services"}}}
	for ns := 0; ns < 100; ns++ {
		namespace := fmt.Sprintf("ns-%d", ns)
		for r := 0; r < 10; r++ {
			x.SetRole(namespace, fmt.Sprintf("role-%d", r), rule)
		}
		for rb := 0; rb < 50; rb++ {
			x.SetBinding(namespace, fmt.Sprintf("rb-%d", rb), rbacv1.RoleRef{Kind: "Role", Name: fmt.Sprintf("role-%d", rb%10)},
				[]rbacv1.Subject{{Kind: "User", Name: fmt.Sprintf("user-%d", (ns*50+rb)%1000)}, {Kind: "Group", Name: fmt.Sprintf("team-%d", rb%20)}})
		}
	}
	x.SetRole("default", "cm-writer", []rbacv1.PolicyRule{{Verbs: []string{"create"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}})
	x.SetBinding("default", "cm-writer", rbacv1.RoleRef{Kind: "Role", Name: "cm-writer"}, []rbacv1.Subject{{Kind: "User", Name: "user-7"}})
	for _, proto := range []string{"http1", "http2"} {
		b.Run(proto, func(b *testing.B) {
			e := newTestEnv(b, func(c *APIConfig) { c.Authn, c.Authz = rbacBenchAuthn{}, rbac.New(x, nil) })
			benchCreates(b, e, proto, "rbac-token")
		})
	}
}
