package auth_test

import (
	"context"
	"crypto/tls"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/server/auth"
)

// userKubeconfig writes a kubeconfig for token as `bramble user create
// --out` does and returns a client built from it.
func userKubeconfig(t testing.TB, admin *auth.UserClient, token string) (*auth.UserClient, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "user.yaml")
	if err := auth.WriteUserKubeconfig(path, admin.ServerURL(), admin.CAPEM(), token); err != nil {
		t.Fatalf("WriteUserKubeconfig: %v", err)
	}
	c, err := auth.NewUserClientFromFile(path)
	if err != nil {
		t.Fatalf("client from user kubeconfig: %v", err)
	}
	return c, path
}

func TestUserLifecycle(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t)
	admin, err := auth.NewUserClientFromFile(c.adminPath)
	if err != nil {
		t.Fatal(err)
	}
	aliceToken, err := admin.CreateUser(ctx, "alice", auth.RoleViewer)
	if err != nil {
		t.Fatalf("create alice: %v", err)
	}
	alice, alicePath := userKubeconfig(t, admin, aliceToken)
	if fi, _ := os.Stat(alicePath); fi.Mode().Perm() != 0o600 {
		t.Errorf("user kubeconfig mode: got %o, want 600", fi.Mode().Perm())
	}
	_, err = alice.ListUsers(ctx)
	if err == nil || !strings.Contains(err.Error(), `User "alice" cannot list resource "secrets"`) {
		t.Errorf("viewer lists users: got %v, want a 403 naming alice", err)
	}

	bobToken, err := admin.CreateUser(ctx, "bob", auth.RoleAdmin)
	if err != nil {
		t.Fatalf("create bob: %v", err)
	}
	bob, _ := userKubeconfig(t, admin, bobToken)
	users, err := bob.ListUsers(ctx)
	if err != nil {
		t.Fatalf("admin token lists users: %v", err)
	}
	if len(users) != 2 || users[0].Name != "alice" || users[0].Role != "viewer" ||
		users[1].Name != "bob" || users[1].Role != "admin" || users[0].Created.IsZero() {
		t.Errorf("users: got %+v, want alice/viewer and bob/admin with creation times", users)
	}
	if id, _, _ := strings.Cut(aliceToken, "."); users[0].ID != id {
		t.Errorf("alice id: got %q, want %q", users[0].ID, id)
	}

	if _, err := admin.CreateUser(ctx, "alice", auth.RoleAdmin); !errors.Is(err, auth.ErrUserExists) {
		t.Errorf("create alice again: got %v, want ErrUserExists", err)
	}
	if _, err := admin.CreateUser(ctx, "Not OK", auth.RoleAdmin); err == nil || !strings.Contains(err.Error(), "user name") {
		t.Errorf("create with a bad name: got %v, want a user name error", err)
	}

	if err := bob.DeleteUser(ctx, "alice"); err != nil {
		t.Fatalf("delete alice: %v", err)
	}
	c.lookup.Invalidate() // the server would otherwise honour the token up to the TTL
	plain := &tls.Config{RootCAs: c.pki.CAPool()}
	if code, body := callVersion(t, c.srv.URL, plain, "Bearer "+aliceToken); code != 401 {
		t.Errorf("deleted user's token: got %d %q, want 401", code, body)
	}
	if err := admin.DeleteUser(ctx, "alice"); !errors.Is(err, auth.ErrUserNotFound) {
		t.Errorf("delete alice again: got %v, want ErrUserNotFound", err)
	}
}

func TestNewUserClientRejectsBadKubeconfig(t *testing.T) {
	c := newTestCluster(t)
	good, err := auth.LoadKubeconfig(c.adminPath)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		mutate func(*auth.Kubeconfig)
		want   string
	}{
		"no current context": {func(k *auth.Kubeconfig) { k.CurrentContext = "" }, "current-context is not set"},
		"unknown context":    {func(k *auth.Kubeconfig) { k.CurrentContext = "x" }, `"x" names no context`},
		"missing user":       {func(k *auth.Kubeconfig) { k.Users = nil }, "one of them is missing"},
		"plain http":         {func(k *auth.Kubeconfig) { k.Clusters[0].Cluster.Server = "http://127.0.0.1:1" }, "want an https:// URL"},
		"no CA":              {func(k *auth.Kubeconfig) { k.Clusters[0].Cluster.CertificateAuthorityData = nil }, "holds no PEM certificate"},
		"broken key":         {func(k *auth.Kubeconfig) { k.Users[0].User.ClientKeyData = []byte("x") }, "client-key-data"},
		"no credentials": {func(k *auth.Kubeconfig) {
			k.Users[0].User.ClientCertificateData, k.Users[0].User.ClientKeyData = nil, nil
		}, "neither a client certificate nor a token"},
	}
	for name, tc := range tests {
		data, err := os.ReadFile(c.adminPath)
		if err != nil {
			t.Fatal(err)
		}
		kc, err := auth.ParseKubeconfig(data)
		if err != nil {
			t.Fatal(err)
		}
		tc.mutate(kc)
		if _, err := auth.NewUserClient(kc); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, tc.want)
		}
	}
	if _, err := auth.NewUserClient(good); err != nil {
		t.Errorf("admin kubeconfig: %v", err)
	}
}
