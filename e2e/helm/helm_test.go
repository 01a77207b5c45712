//go:build helm

package helm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// Helm versions the tests build, as hack/deps.sh installs them.
const (
	Helm3 = "v3.22.0"
	Helm4 = "v4.3.1"
)

var modules = map[string]string{Helm3: "helm.sh/helm/v3/cmd/helm", Helm4: "helm.sh/helm/v4/cmd/helm"}

// helmPath is where hack/deps.sh puts Helm version v:
// ${XDG_CACHE_HOME:-$HOME/.cache}/bramble/helm/<v>/helm.
func helmPath(v string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "bramble", "helm", v, "helm"), nil
}

// helmBinary is Helm v, built from the Go module proxy into the cache
// folder when it is not there yet. A build that fails fails the test.
func helmBinary(t testing.TB, v string) string {
	t.Helper()
	path, err := helmPath(v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		return path
	}
	t.Logf("building Helm %s into %s (once; hack/deps.sh does it ahead of CI)", v, filepath.Dir(path))
	cmd := exec.Command("go", "install", modules[v]+"@"+v)
	cmd.Env = append(os.Environ(), "GOBIN="+filepath.Dir(path))
	cmd.Dir = os.TempDir() // outside this module: Helm's own go.mod decides its dependencies
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build Helm %s: %v\n%s", v, err, out)
	}
	return path
}

// env is one Helm binary against one server, with Helm's and kubectl's
// state in the test's own folders.
type env struct {
	t    *testing.T
	s    *cluster.Server
	helm string
	dir  string
}

func newEnv(t *testing.T, s *cluster.Server, version string) *env {
	t.Helper()
	return &env{t: t, s: s, helm: helmBinary(t, version), dir: t.TempDir()}
}

func (e *env) environ() []string {
	return append(os.Environ(), "KUBECONFIG="+e.s.Kubeconfig, "HOME="+e.s.Home,
		"HELM_CACHE_HOME="+filepath.Join(e.dir, "cache"), "HELM_CONFIG_HOME="+filepath.Join(e.dir, "config"),
		"HELM_DATA_HOME="+filepath.Join(e.dir, "data"))
}

// run runs helm with args (stdin empty) and returns its combined output.
func (e *env) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.helm, args...)
	cmd.Env, cmd.Dir = e.environ(), e.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// ok runs helm and fails the test on a non-zero exit.
func (e *env) ok(args ...string) string {
	e.t.Helper()
	out, err := e.run(args...)
	if err != nil {
		e.t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// kubectl runs the real kubectl against the server; it fails the test on
// a non-zero exit.
func (e *env) kubectl(stdin string, args ...string) string {
	e.t.Helper()
	out, errOut, err := e.s.KubectlWith(cluster.KubectlPath, e.s.Kubeconfig, stdin, args...)
	if err != nil {
		e.t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// writeChart writes files (path -> content) under a chart folder and
// returns its path.
func (e *env) writeChart(name string, files map[string]string) string {
	e.t.Helper()
	root := filepath.Join(e.dir, name)
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
	return root
}

func wantContains(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Fatalf("output lacks %q:\n%s", w, out)
		}
	}
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bramble-helm-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := cluster.Build(dir, true); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
