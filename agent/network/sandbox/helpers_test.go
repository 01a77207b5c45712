package sandbox

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// pluginDir is where Debian's containernetworking-plugins put the CNI
// plugins; tests fail (never skip) without them.
const pluginDir = "/usr/lib/cni"

// inPrivateNet runs f on a thread of its own inside a new network
// namespace. The CNI plugins f's Manager runs are children of that thread,
// so the test's bridge, addresses and iptables rules live and die with
// that namespace and never touch the host's. f returns its failure (it
// must not call t.Fatal: it runs on another goroutine).
func inPrivateNet(t testing.TB, f func() error) {
	t.Helper()
	for _, p := range []string{"bridge", "host-local", "loopback", "portmap", "bandwidth"} {
		if _, err := os.Stat(filepath.Join(pluginDir, p)); err != nil {
			t.Fatalf("CNI plugin %s missing (apt-get install containernetworking-plugins): %v", p, err)
		}
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread goes with the namespace
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("unshare network namespace: %w", err)
			return
		}
		errc <- f()
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func newTestManager(t testing.TB, dir string, own bool) *Manager {
	t.Helper()
	m, err := New(Config{AgentDir: dir, BinDirs: []string{pluginDir}, Bridge: "brtest0", OwnConfig: own})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unpinAll(m) })
	return m
}

// unpinAll unpins the namespace files a failed test left, so its temporary
// folder can go (their network went with the test's private namespace).
func unpinAll(m *Manager) {
	for _, kind := range []nsKind{netNS, utsNS} {
		ents, _ := os.ReadDir(m.cfg.runDir(kind))
		for _, e := range ents {
			_ = removeNS(filepath.Join(m.cfg.runDir(kind), e.Name()))
		}
	}
}

func testPod(name string, uid int) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name,
		UID: types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", uid)), Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}}
}

// addrsIn lists the addresses of the interfaces in the namespace file.
func addrsIn(path string) ([]netip.Addr, error) {
	type answer struct {
		addrs []netip.Addr
		err   error
	}
	c := make(chan answer, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread joined another namespace
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			c <- answer{err: err}
			return
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			c <- answer{err: fmt.Errorf("setns %s: %w", path, err)}
			return
		}
		as, err := net.InterfaceAddrs()
		var out []netip.Addr
		for _, a := range as {
			if p, perr := netip.ParsePrefix(a.String()); perr == nil {
				out = append(out, p.Addr())
			}
		}
		c <- answer{out, err}
	}()
	a := <-c
	return a.addrs, a.err
}

// heldAddresses lists the addresses host-local holds.
func heldAddresses(m *Manager) map[string]bool {
	out := map[string]bool{}
	ents, _ := os.ReadDir(filepath.Join(m.cfg.IPAMDir(), NetworkName))
	for _, e := range ents {
		if _, err := netip.ParseAddr(e.Name()); err == nil {
			out[e.Name()] = true
		}
	}
	return out
}

func dirLen(dir string) int {
	ents, _ := os.ReadDir(dir)
	return len(ents)
}

var bg = context.Background()

// lockForever pins the goroutine to its thread, which exits with it.
func lockForever() { runtime.LockOSThread() }
