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

// ImportBusybox drops a busybox tarball into the images folder of the
// agent whose data dir is dataDir (a server's, for its embedded agent).
func ImportBusybox(t testing.TB, dataDir string, d *runtimetest.Daemon, ns, image string) {
	t.Helper()
	img, err := runtimetest.Busybox(image, nil)
	if err != nil {
		t.Fatal(err)
	}
	importImage(t, dataDir, d, ns, "busybox", img, 30*time.Second)
}

// ImportNetHelper builds e2e/testdata/nethelper (a static HTTP server and
// client, CGO off) into a busybox image named image, drops it into the
// images folder of the agent whose data dir is dataDir, and waits until
// containerd has it. Pods run it as /bin/nethelper.
func ImportNetHelper(t testing.TB, dataDir string, d *runtimetest.Daemon, ns, image string) {
	t.Helper()
	importProgram(t, dataDir, d, ns, image, goProgram{name: "nethelper", pkg: "./testdata/nethelper"})
}

// ImportInCluster builds e2e/testdata/incluster (a client-go program
// configured by rest.InClusterConfig, CGO off, stripped) into a busybox
// image named image, drops it into the images folder of the agent whose
// data dir is dataDir, and waits until containerd has it. Pods run
// /bin/incluster.
func ImportInCluster(t testing.TB, dataDir string, d *runtimetest.Daemon, ns, image string) {
	t.Helper()
	// a module of its own: client-go stays out of bramble's
	importProgram(t, dataDir, d, ns, image, goProgram{name: "incluster", dir: filepath.Join("testdata", "incluster"),
		pkg: ".", ldflags: "-s -w"})
}

// goProgram is a test program built into an image as /bin/<name>: pkg
// built from dir ("" for the test's own) with CGO off.
type goProgram struct {
	name, dir, pkg, ldflags string
}

func importProgram(t testing.TB, dataDir string, d *runtimetest.Daemon, ns, image string, p goProgram) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), p.name)
	args := []string{"build", "-trimpath", "-o", bin}
	if p.ldflags != "" {
		args = append(args, "-ldflags", p.ldflags)
	}
	cmd := exec.Command("go", append(args, p.pkg)...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v: %s", p.name, err, out)
	}
	prog, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	img, err := runtimetest.BusyboxWith(image, nil, map[string][]byte{"bin/" + p.name: prog})
	if err != nil {
		t.Fatal(err)
	}
	importImage(t, dataDir, d, ns, p.name, img, 60*time.Second)
}

// importImage writes img as <file>.tar into the agent's images folder
// (through a temporary name, so the agent never reads half a tarball) and
// waits up to timeout until containerd lists it.
func importImage(t testing.TB, dataDir string, d *runtimetest.Daemon, ns, file string, img *runtimetest.Image, timeout time.Duration) {
	t.Helper()
	images := filepath.Join(dataDir, "agent", "images")
	if err := os.MkdirAll(images, 0o700); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(images, file+".tar.tmp")
	if err := runtimetest.WriteOCIArchive(tmp, img); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(images, file+".tar")); err != nil {
		t.Fatal(err)
	}
	WaitFor(t, timeout, func() bool {
		return strings.Contains(Ctr(t, d, ns, "images", "ls", "-q"), img.Name)
	}, "the "+file+" image to be imported")
}
