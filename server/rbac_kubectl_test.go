//go:build kubectl

package server

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/manager"
	"github.com/bramble-edge/bramble/server/auth"
)

// rbacEnv is a real server driven by one real kubectl binary, with a
// kubeconfig per user.
type rbacEnv struct {
	dir, bin, admin string
	users           *auth.UserClient
}

func startRBACServer(t *testing.T) (*Server, string) {
	t.Helper()
	dir := t.TempDir()
	s := mustStartOnFreePorts(t, Config{DataDir: dir, WriteKubeconfig: filepath.Join(dir, "kubeconfig.yaml"),
		DisableScheduler: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		// the aggregation controller fills admin, edit and view
		Controllers: func(d controllers.Deps) (ControllerSet, error) { return manager.New(d) }})
	return s, dir
}

// run runs kubectl as the user whose kubeconfig is kc ("" for admin).
func (e *rbacEnv) run(t *testing.T, kc string, args ...string) (string, error) {
	t.Helper()
	if kc == "" {
		kc = e.admin
	}
	cmd := exec.Command(e.bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+e.dir, "KUBECONFIG="+kc)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (e *rbacEnv) ok(t *testing.T, kc string, args ...string) string {
	t.Helper()
	out, err := e.run(t, kc, args...)
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(e.bin), args, err, out)
	}
	return out
}

// refused runs a command that must fail with output containing want.
func (e *rbacEnv) refused(t *testing.T, kc, want string, args ...string) {
	t.Helper()
	out, err := e.run(t, kc, args...)
	if err == nil || !strings.Contains(out, want) {
		t.Fatalf("%s %v: got %v\n%s\nwant a failure containing %q", filepath.Base(e.bin), args, err, out, want)
	}
}

// canI asks kubectl auth can-i as kc and checks the yes/no answer.
func (e *rbacEnv) canI(t *testing.T, kc string, want bool, args ...string) {
	t.Helper()
	out, _ := e.run(t, kc, append([]string{"auth", "can-i"}, args...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n") // after any warning
	last := lines[len(lines)-1]
	got := strings.HasPrefix(last, "yes")
	if got != want || (!got && !strings.HasPrefix(last, "no")) {
		t.Fatalf("can-i %v: got %q, want yes=%v", args, out, want)
	}
}

// user makes bramble user name with role and waits until its binding
// lets it ask about itself.
func (e *rbacEnv) user(t *testing.T, name, role string) string {
	t.Helper()
	token, err := e.users.CreateUser(context.Background(), name, role)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(e.dir, name+".kubeconfig")
	if err := auth.WriteUserKubeconfig(path, e.users.ServerURL(), e.users.CAPEM(), token); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the ClusterRoleBinding of user "+name, func() bool {
		out, _ := e.run(t, "", "get", "clusterrolebinding", "bramble-user:"+name, "-o", "jsonpath={.roleRef.name}")
		return out == auth.UserClusterRole(role)
	})
	return path
}

// TestKubectlRBACEnforced: RBAC objects made with kubectl decide what
// users may do, as kubectl auth can-i, can-i --list and whoami report;
// impersonation needs the impersonate verb; escalation is refused;
// auth reconcile works; the aggregated view role picks up a new role.
func TestKubectlRBACEnforced(t *testing.T) {
	s, dir := startRBACServer(t)
	users, err := auth.NewUserClientFromFile(s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"27", "33"} {
		bin := "/usr/lib/google-cloud-sdk/bin/kubectl.1." + v
		t.Run("kubectl-1."+v, func(t *testing.T) {
			if _, err := exec.LookPath(bin); err != nil {
				t.Fatalf("%s is required for this test: %v", bin, err)
			}
			e := &rbacEnv{dir: dir, bin: bin, admin: s.Kubeconfig, users: users}
			testRBACObjects(t, e, "v"+v)
			testRBACEscalation(t, e, "v"+v)
			testRBACImpersonation(t, e, "v"+v)
		})
	}
	e := &rbacEnv{dir: dir, bin: "/usr/lib/google-cloud-sdk/bin/kubectl.1.33", admin: s.Kubeconfig, users: users}
	testRBACAggregation(t, e)
}
