package server

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/server/auth"
)

// TestUpgradeKeepsUsers starts this server on a data dir made by the
// release before RBAC was enforced (commit c31d05b; see
// hack/upgrade-fixture.sh): its admin user olga and viewer vic, whose
// tokens predate RBAC, keep doing what they did, through the
// ClusterRoleBindings the server makes for them.
func TestUpgradeKeepsUsers(t *testing.T) {
	dir := t.TempDir()
	extractFixture(t, "testdata/upgrade-c31d05b.tar.gz", dir)
	s := mustStartOnFreePorts(t, Config{DataDir: filepath.Join(dir, "data"), WriteKubeconfig: filepath.Join(dir, "admin.yaml"),
		DisableScheduler: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	olga, vic := fixtureClient(t, dir, "olga", s.URL), fixtureClient(t, dir, "vic", s.URL)
	ctx := context.Background()
	cm := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"after-upgrade"}}`)
	eventually(t, "olga (admin) creating a ConfigMap", func() bool {
		return olga.Do(ctx, http.MethodPost, "/api/v1/namespaces/default/configmaps", cm, nil) == nil
	})
	for _, path := range []string{"/api/v1/namespaces/kube-system/secrets", "/api/v1/nodes", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"} {
		if err := olga.Do(ctx, http.MethodGet, path, nil, nil); err != nil {
			t.Errorf("olga GET %s: %v", path, err)
		}
	}
	eventually(t, "vic (viewer) reading", func() bool {
		return vic.Do(ctx, http.MethodGet, "/api/v1/namespaces/default/configmaps/before-upgrade", nil, nil) == nil
	})
	for _, path := range []string{"/api/v1/nodes", "/api/v1/namespaces/default/pods", "/apis/apps/v1/deployments", "/api/v1/namespaces"} {
		if err := vic.Do(ctx, http.MethodGet, path, nil, nil); err != nil {
			t.Errorf("vic GET %s: %v", path, err)
		}
	}
	err := vic.Do(ctx, http.MethodGet, "/api/v1/namespaces/kube-system/secrets", nil, nil)
	if err == nil || !strings.Contains(err.Error(), `User "vic" cannot list resource "secrets"`) {
		t.Errorf("vic lists secrets: got %v, want a 403 naming vic", err)
	}
	if err := vic.Do(ctx, http.MethodDelete, "/api/v1/namespaces/default/configmaps/before-upgrade", nil, nil); err == nil {
		t.Error("vic deleted a ConfigMap")
	}
	users, err := auth.NewUserClientFromFile(s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	list, err := users.ListUsers(ctx)
	if err != nil || len(list) != 2 || list[0].Role != "admin" || list[1].Role != "viewer" {
		t.Errorf("users after upgrade: got %+v, %v", list, err)
	}
	if err := users.DeleteUser(ctx, "olga"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "olga's ClusterRoleBinding deleted with her", func() bool {
		err := vic.Do(ctx, http.MethodGet, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/bramble-user:olga", nil, nil)
		return auth.IsStatus(err, http.StatusNotFound)
	})
}

// fixtureClient is an API client with user name's kubeconfig from the
// fixture, pointed at url.
func fixtureClient(t *testing.T, dir, name, url string) *auth.APIClient {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name+".kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	kc, err := auth.ParseKubeconfig([]byte(strings.ReplaceAll(string(data), "https://SERVER", url)))
	if err != nil {
		t.Fatal(err)
	}
	c, err := auth.NewAPIClient(kc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func extractFixture(t *testing.T, archive, dir string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.Clean("/"+h.Name))
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(path, 0o700); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, os.FileMode(h.Mode)&0o700); err != nil {
			t.Fatal(err)
		}
	}
}
