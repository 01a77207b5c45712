package auth_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/bootstrap"
	"github.com/bramble-edge/bramble/server/pki"
	"github.com/bramble-edge/bramble/server/rbac"
)

// defaultRBAC is the authorizer's index with every role and binding a
// server makes at start, nothing else.
func defaultRBAC() *rbac.Index {
	x := rbac.NewIndex()
	for _, r := range append(bootstrap.DefaultClusterRoles(), bootstrap.SystemClusterRoles(api.All())...) {
		x.Apply(r)
	}
	for _, b := range bootstrap.DefaultClusterRoleBindings() {
		x.Apply(b)
	}
	return x
}

// viewerCert issues viewer credentials as `bramble mqtt credentials
// create` does, through the broker package, and returns the certificate.
func viewerCert(t *testing.T, p *pki.PKI, name string) *x509.Certificate {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := broker.CreateViewerCredentials(p, name, dir, 0); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, broker.CredentialsCertFile))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("%s: no PEM block", broker.CredentialsCertFile)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// TestBrokerViewersAreRBACViewers: the certificate the broker package
// issues a viewer authenticates at the API as a viewer whom the default
// RBAC bindings let read ConfigMaps but not Secrets, and the group of
// viewer user tokens is the one those bindings name. It fails if the
// broker's viewer group and RBAC's ever disagree.
func TestBrokerViewersAreRBACViewers(t *testing.T) {
	p, err := pki.Load(t.TempDir(), pki.Config{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/api/v1/configmaps", nil)
	r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{viewerCert(t, p, "dash")}}
	u, err := auth.NewAuthenticator(p.CAPool(), nil).Authenticate(r)
	if err != nil || u.Role != auth.RoleViewer {
		t.Fatalf("viewer certificate at the API: got %+v, %v; want role %s", u, err, auth.RoleViewer)
	}
	x := defaultRBAC()
	if !x.Allows(u.Name, u.Groups, &auth.Attributes{Verb: "list", Resource: "configmaps"}) {
		t.Errorf("viewer %s (groups %q): list configmaps refused, want the %s binding to allow it", u.Name, u.Groups, bootstrap.ViewerRole)
	}
	if x.Allows(u.Name, u.Groups, &auth.Attributes{Verb: "list", Resource: "secrets"}) {
		t.Errorf("viewer %s: list secrets allowed, want refused", u.Name)
	}
	for _, b := range bootstrap.DefaultClusterRoleBindings() {
		if b.RoleRef.Name != bootstrap.ViewerRole {
			continue
		}
		want := rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: auth.GroupViewers}
		if !slices.Contains(b.Subjects, want) {
			t.Errorf("binding %s: subjects %+v, want the viewer tokens' group %q", b.Name, b.Subjects, auth.GroupViewers)
		}
	}
}
