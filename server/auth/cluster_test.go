package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/bootstrap"
	"github.com/bramble-edge/bramble/server/pki"
	"github.com/bramble-edge/bramble/server/rbac"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// testCluster is a TLS server built from the real PKI, Authenticator,
// Authorizer and SecretTokenLookup, in front of a small in-memory store of
// kube-system Secrets. GET /version answers a version document whose "who"
// field is "<user> <role> <node>".
// It stands in for the REST server (package server) in these tests.
type testCluster struct {
	pki       *pki.PKI
	srv       *httptest.Server
	lookup    *auth.SecretTokenLookup
	authn     auth.Authenticator
	authz     auth.Authorizer
	rbac      *rbac.Index
	adminPath string // admin kubeconfig

	mu      sync.Mutex
	secrets map[string]corev1.Secret
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newTestCluster(t testing.TB) *testCluster {
	t.Helper()
	p, err := pki.Load(t.TempDir(), pki.Config{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	c := &testCluster{pki: p, secrets: make(map[string]corev1.Secret)}
	c.lookup = auth.NewSecretTokenLookup(c.listSecrets, auth.SecretTokenLookupConfig{Logger: quietLogger()})
	c.authn = auth.NewAuthenticator(p.CAPool(), c.lookup)
	c.rbac = testRBAC()
	c.authz = rbac.New(c.rbac, auth.NewNodeAuthorizer(nil))
	c.srv = httptest.NewUnstartedServer(c)
	c.srv.TLS = p.ServingTLSConfig()
	c.srv.EnableHTTP2 = true
	c.srv.StartTLS()
	t.Cleanup(c.srv.Close)
	c.adminPath = filepath.Join(t.TempDir(), "bramble.yaml")
	if err := p.WriteKubeconfig(c.adminPath, 0o600, c.srv.URL); err != nil {
		t.Fatal(err)
	}
	return c
}

// testRBAC is the API server's authorizer with the roles every server
// makes at start; cluster-admin is bound to system:masters and
// bramble:viewer to the viewers' group, as at start, but discovery only to
// the viewers' group too, so that a certificate in groups no binding names
// is refused (the authenticator tests check it is left to RBAC). User
// tokens get their binding when their Secret is made (bindUser), as
// server/rbac's UserBindings does.
func testRBAC() *rbac.Index {
	x := rbac.NewIndex()
	for _, r := range append(bootstrap.DefaultClusterRoles(), bootstrap.SystemClusterRoles(api.All())...) {
		x.Apply(r)
	}
	for _, b := range bootstrap.DefaultClusterRoleBindings() {
		if b.Name == "cluster-admin" || b.Name == bootstrap.ViewerRole {
			x.Apply(b)
		}
	}
	bindGroup := []rbacv1.Subject{{Kind: rbacv1.GroupKind, Name: auth.GroupViewers}}
	x.SetBinding("", "system:discovery", rbacv1.RoleRef{Kind: "ClusterRole", Name: "system:discovery"}, bindGroup)
	return x
}

// bindUser binds the user of Secret s to its ClusterRole, or unbinds it
// when gone.
func (c *testCluster) bindUser(s *corev1.Secret, gone bool) {
	t, err := auth.StoredTokenFromSecret(s)
	if err != nil {
		return
	}
	if gone {
		c.rbac.DeleteBinding("", auth.UserBindingPrefix+t.Name)
		return
	}
	ref := rbacv1.RoleRef{Kind: "ClusterRole", Name: auth.UserClusterRole(t.Role)}
	c.rbac.SetBinding("", auth.UserBindingPrefix+t.Name, ref, []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: t.Name}})
}

func (c *testCluster) listSecrets(_ context.Context, ns string) ([]corev1.Secret, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []corev1.Secret
	for _, s := range c.secrets {
		out = append(out, s)
	}
	return out, nil
}

func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(&metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusFailure, Message: err.Error(), Reason: reason, Code: int32(code)})
}

func (c *testCluster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	user, err := c.authn.Authenticate(r)
	if err != nil {
		writeStatus(w, http.StatusUnauthorized, metav1.StatusReasonUnauthorized, err)
		return
	}
	attrs := requestAttributes(r)
	if err := c.authz.Authorize(r.Context(), user, attrs); err != nil {
		writeStatus(w, http.StatusForbidden, metav1.StatusReasonForbidden, err)
		return
	}
	if attrs.NonResourcePath == "/version" {
		w.Header().Set("Content-Type", "application/json")
		who := fmt.Sprintf("%s %s %s", user.Name, user.Role, user.Node)
		fmt.Fprintf(w, `{"major":"1","minor":"32","gitVersion":"v1.32.0","who":%q}`, who)
		return
	}
	c.serveSecrets(w, r, attrs)
}

const secretsPath = "/api/v1/namespaces/kube-system/secrets"

// requestAttributes knows only /version and the kube-system secrets.
func requestAttributes(r *http.Request) auth.Attributes {
	p := r.URL.Path
	if !strings.HasPrefix(p, secretsPath) {
		return auth.Attributes{Verb: strings.ToLower(r.Method), NonResourcePath: p}
	}
	a := auth.Attributes{Resource: "secrets", Namespace: "kube-system",
		Name: strings.TrimPrefix(strings.TrimPrefix(p, secretsPath), "/")}
	switch {
	case r.Method == http.MethodPost:
		a.Verb = "create"
	case r.Method == http.MethodDelete:
		a.Verb = "delete"
	case a.Name == "":
		a.Verb = "list"
	default:
		a.Verb = "get"
	}
	return a
}

func (c *testCluster) serveSecrets(w http.ResponseWriter, r *http.Request, a auth.Attributes) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch a.Verb {
	case "create":
		var s corev1.Secret
		if err := json.NewDecoder(r.Body).Decode(&s); err != nil {
			writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, err)
			return
		}
		if _, ok := c.secrets[s.Name]; ok {
			writeStatus(w, http.StatusConflict, metav1.StatusReasonAlreadyExists,
				fmt.Errorf("secrets %q already exists", s.Name))
			return
		}
		s.CreationTimestamp = metav1.NewTime(time.Now().Truncate(time.Second))
		c.secrets[s.Name] = s
		c.bindUser(&s, false)
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(&s)
	case "list":
		c.listLocked(w, r)
	case "delete":
		if _, ok := c.secrets[a.Name]; !ok {
			writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, fmt.Errorf("secrets %q not found", a.Name))
			return
		}
		gone := c.secrets[a.Name]
		delete(c.secrets, a.Name)
		c.bindUser(&gone, true)
		json.NewEncoder(w).Encode(&metav1.Status{Status: metav1.StatusSuccess})
	default:
		writeStatus(w, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, errors.New("not served"))
	}
}

func (c *testCluster) listLocked(w http.ResponseWriter, r *http.Request) {
	sel, err := labels.Parse(r.URL.Query().Get("labelSelector"))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, err)
		return
	}
	list := corev1.SecretList{TypeMeta: metav1.TypeMeta{Kind: "SecretList", APIVersion: "v1"}}
	for _, s := range c.secrets {
		if sel.Matches(labels.Set(s.Labels)) {
			list.Items = append(list.Items, s)
		}
	}
	json.NewEncoder(w).Encode(&list)
}
