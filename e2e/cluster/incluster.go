package cluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
)

// ImportInCluster builds e2e/testdata/incluster (a client-go program configured by
// rest.InClusterConfig, CGO off, stripped) into a busybox image named
// image, drops it into the images folder of the agent whose data dir is
// dataDir, and waits until containerd has it. Pods run /bin/incluster.
func ImportInCluster(t testing.TB, dataDir string, d *runtimetest.Daemon, ns, image string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "incluster")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".")
	cmd.Dir = filepath.Join("testdata", "incluster") // a module of its own: client-go stays out of bramble's
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build incluster: %v: %s", err, out)
	}
	prog, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	img, err := runtimetest.BusyboxWith(image, nil, map[string][]byte{"bin/incluster": prog})
	if err != nil {
		t.Fatal(err)
	}
	images := filepath.Join(dataDir, "agent", "images")
	if err := os.MkdirAll(images, 0o700); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(images, "incluster.tar.tmp")
	if err := runtimetest.WriteOCIArchive(tmp, img); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(images, "incluster.tar")); err != nil {
		t.Fatal(err)
	}
	WaitFor(t, 60*time.Second, func() bool {
		return strings.Contains(Ctr(t, d, ns, "images", "ls", "-q"), image)
	}, "the incluster image to be imported")
}
