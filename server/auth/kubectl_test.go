package auth_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/server/auth"
)

// kubectl runs the machine's real kubectl with kubeconfig and args.
func kubectl(t testing.TB, kubeconfig string, args ...string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is required for this test: %v", err)
	}
	cmd := exec.Command(bin, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The kubeconfigs bramble writes work with the real kubectl: the admin one
// (client certificate) and a user one (bearer token).
func TestKubeconfigsWorkWithKubectl(t *testing.T) {
	c := newTestCluster(t)
	out, err := kubectl(t, c.adminPath, "get", "--raw", "/version")
	if err != nil || !strings.Contains(out, `"who":"admin admin "`) {
		t.Fatalf("kubectl with the admin kubeconfig: got %v\n%s\nwant who=admin admin", err, out)
	}
	admin, err := auth.NewUserClientFromFile(c.adminPath)
	if err != nil {
		t.Fatal(err)
	}
	token, err := admin.CreateUser(context.Background(), "dora", auth.RoleViewer)
	if err != nil {
		t.Fatal(err)
	}
	_, path := userKubeconfig(t, admin, token)
	out, err = kubectl(t, path, "get", "--raw", "/version")
	if err != nil || !strings.Contains(out, `"who":"dora viewer "`) {
		t.Fatalf("kubectl with the user kubeconfig: got %v\n%s\nwant who=dora viewer", err, out)
	}
	out, err = kubectl(t, path, "get", "--raw", "/api/v1/namespaces/kube-system/secrets")
	if err == nil || !strings.Contains(out, "Forbidden") {
		t.Fatalf("kubectl listing secrets as a viewer: got %v\n%s\nwant a Forbidden error", err, out)
	}
}
