package pods

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/namespaces"

	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/agent/runtime/logdriver"
	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
)

const busybox = "docker.io/library/busybox:pods"

var (
	daemon     *runtimetest.Daemon
	daemonOnce sync.Once
	daemonErr  error
)

func TestMain(m *testing.M) {
	// containerd's shim runs this test binary as the containers' log driver.
	if len(os.Args) == 3 && os.Args[1] == logdriver.Command {
		if err := logdriver.Run(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if daemon != nil {
		if err := daemon.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop private containerd:", err)
			code = max(code, 1)
		}
	}
	os.Exit(code)
}

// realRuntime connects to the private containerd (started on first use)
// in a namespace of the test's own, with busybox imported; everything in
// the namespace is removed when the test ends.
func realRuntime(t testing.TB) (*runtime.Containerd, *containerd.Client, context.Context) {
	t.Helper()
	daemonOnce.Do(func() { daemon, daemonErr = runtimetest.StartContainerd(context.Background(), "") })
	if daemonErr != nil {
		t.Fatalf("start private containerd: %v", daemonErr)
	}
	// The process ID keeps two test runs on one machine apart: containers'
	// cgroups are /<namespace>/<id> in the host's shared tree.
	ns := "pods" + strconv.Itoa(os.Getpid()) + "-" + strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	ctx := context.Background()
	rt, err := runtime.NewContainerd(ctx, runtime.ContainerdConfig{Address: daemon.Address, Namespace: ns,
		Logger: slog.New(slog.NewTextHandler(testWriter{t}, nil)), LogMaxBytes: 64 << 10})
	if err != nil {
		t.Fatalf("NewContainerd: %v", err)
	}
	client, err := containerd.New(daemon.Address)
	if err != nil {
		t.Fatalf("connect containerd: %v", err)
	}
	nsCtx := namespaces.WithNamespace(ctx, ns)
	t.Cleanup(func() {
		if err := runtimetest.CleanNamespace(nsCtx, client); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		client.Close()
		rt.Close()
	})
	img, err := runtimetest.Busybox(busybox, nil)
	if err != nil {
		t.Fatal(err)
	}
	tarball, err := runtimetest.OCIArchive(img)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.ImportImages(ctx, bytes.NewReader(tarball)); err != nil {
		t.Fatalf("import busybox: %v", err)
	}
	return rt, client, nsCtx
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
