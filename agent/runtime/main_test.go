package runtime

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/namespaces"
	"github.com/containerd/containerd/oci"

	"github.com/bramble-edge/bramble/agent/runtime/logdriver"
	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
)

// daemon is the private containerd the tests in this package talk to,
// started by the first test needing it (fuzz workers never do).
var (
	daemon     *runtimetest.Daemon
	daemonOnce sync.Once
	daemonErr  error
)

// testDaemon returns the private containerd, starting it on first use.
func testDaemon(t testing.TB) *runtimetest.Daemon {
	t.Helper()
	daemonOnce.Do(func() {
		daemon, daemonErr = runtimetest.StartContainerd(context.Background(), "")
	})
	if daemonErr != nil {
		t.Fatalf("start private containerd: %v", daemonErr)
	}
	return daemon
}

func TestMain(m *testing.M) {
	// containerd's shim runs this test binary as the containers' log driver.
	if len(os.Args) == 3 && os.Args[1] == logdriver.Command {
		if err := logdriver.Run(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(helperEnv) != "" {
		if err := runHelperAgent(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(runWithDaemon(m))
}

func runWithDaemon(m *testing.M) int {
	code := m.Run()
	if daemon == nil {
		return code
	}
	if err := daemon.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop private containerd:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// testNamespace is a containerd namespace of the test's own. It carries
// the process ID: containers' cgroups are /<namespace>/<id> in the host's
// shared cgroup tree, so two test runs on one machine must not share
// namespace names, or one run's kills reach the other's containers.
func testNamespace(t testing.TB) string {
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	return "t" + strconv.Itoa(os.Getpid()) + "-" + name
}

// newRuntime connects a Containerd in namespace ns of the private daemon
// (the test's own when ns is empty); the containers and images left in ns
// are removed when the test ends.
func newRuntime(t testing.TB, ns string) *Containerd {
	t.Helper()
	if ns == "" {
		ns = testNamespace(t)
	}
	ctx := context.Background()
	d := testDaemon(t)
	rt, err := NewContainerd(ctx, ContainerdConfig{
		Address:     d.Address,
		Namespace:   ns,
		Logger:      slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})),
		LogMaxBytes: 64 << 10,
	})
	if err != nil {
		t.Fatalf("NewContainerd: %v", err)
	}
	t.Cleanup(func() {
		c, err := containerd.New(d.Address)
		if err != nil {
			t.Errorf("cleanup connect: %v", err)
			return
		}
		defer c.Close()
		if err := runtimetest.CleanNamespace(namespaces.WithNamespace(ctx, ns), c); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		rt.Close()
	})
	return rt
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// importBusybox imports a busybox image named name (with labels making its
// digest distinct) and returns what ImportImages reported.
func importBusybox(t testing.TB, rt *Containerd, name string, labels map[string]string) Image {
	t.Helper()
	img, err := runtimetest.Busybox(name, labels)
	if err != nil {
		t.Fatal(err)
	}
	tarball, err := runtimetest.OCIArchive(img)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rt.ImportImages(context.Background(), bytes.NewReader(tarball))
	if err != nil {
		t.Fatalf("ImportImages(%s): %v", name, err)
	}
	if len(got) != 1 || got[0].Name != name {
		t.Fatalf("ImportImages(%s): got %+v, want one image named %s", name, got, name)
	}
	return got[0]
}

// waitState polls until the container reaches state or the timeout passes.
func waitState(t testing.TB, rt *Containerd, id string, want State, timeout time.Duration) ContainerStatus {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		st, err := rt.ContainerStatus(context.Background(), id)
		if err != nil {
			t.Fatalf("ContainerStatus(%s): %v", id, err)
		}
		if st.State == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("container %s: got state %s after %s, want %s", id, st.State, timeout, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitFile polls until path holds want (or the timeout passes) and
// returns its content.
func waitFile(t testing.TB, path, want string, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), want) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: got %q after %s, want it to contain %q", path, b, timeout, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ociSpec returns the OCI spec containerd holds for a container.
func ociSpec(t testing.TB, rt *Containerd, id string) *oci.Spec {
	t.Helper()
	ctx := context.Background()
	ctr, err := rt.client.LoadContainer(ctx, id)
	if err != nil {
		t.Fatalf("load container %s: %v", id, err)
	}
	spec, err := ctr.Spec(ctx)
	if err != nil {
		t.Fatalf("spec of %s: %v", id, err)
	}
	return spec
}

// regexpLine reports whether any line of s matches pattern.
func regexpLine(s, pattern string) bool {
	re := regexp.MustCompile(pattern)
	for _, l := range strings.Split(s, "\n") {
		if re.MatchString(strings.TrimSpace(l)) {
			return true
		}
	}
	return false
}
