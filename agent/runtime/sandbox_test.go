package runtime

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pinnedNamespaces makes a network and a UTS namespace pinned on files
// (util-linux unshare), as agent/network/sandbox does for a pod.
func pinnedNamespaces(t *testing.T) (netns, utsns string) {
	t.Helper()
	dir := t.TempDir()
	netns, utsns = filepath.Join(dir, "net"), filepath.Join(dir, "uts")
	for _, f := range []string{netns, utsns} {
		if err := os.WriteFile(f, nil, 0o444); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = unix.Unmount(f, unix.MNT_DETACH) })
	}
	if out, err := exec.Command("unshare", "--net="+netns, "--uts="+utsns, "true").CombinedOutput(); err != nil {
		t.Fatalf("unshare: %v: %s", err, out)
	}
	return netns, utsns
}

// A container with a Sandbox joins the pod's namespaces by path: its
// hostname is the pod's, its /etc/hosts and /etc/hostname the pod's
// files, and it sees only the pod network's interfaces.
func TestContainerJoinsItsSandbox(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	netns, utsns := pinnedNamespaces(t)
	files := t.TempDir()
	hosts, hostname := filepath.Join(files, "hosts"), filepath.Join(files, "hostname")
	if err := os.WriteFile(hosts, []byte("10.42.0.7\tweb-0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hostname, []byte("web-0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "0.log")
	err := rt.RunContainer(context.Background(), ContainerSpec{
		ID: "sandboxed", Image: busybox, LogPath: logPath,
		Command: []string{"sh", "-c", `echo "host=$(hostname) hosts=$(cat /etc/hosts) file=$(cat /etc/hostname) ifs=$(ls /sys/class/net | tr '\n' ,)"`},
		Sandbox: &Sandbox{NetNS: netns, UTSNS: utsns, HostsFile: hosts, HostnameFile: hostname, Hostname: "web-0"},
	})
	if err != nil {
		t.Fatalf("RunContainer: %v", err)
	}
	if st := waitState(t, rt, "sandboxed", StateExited, 20*time.Second); st.ExitCode != 0 {
		t.Fatalf("exit code: got %d, want 0; log:\n%s", st.ExitCode, readFile(t, logPath))
	}
	content := waitFile(t, logPath, "host=", 5*time.Second)
	if want := "host=web-0 hosts=10.42.0.7\tweb-0 file=web-0 ifs=lo,"; !strings.Contains(content, want) {
		t.Errorf("log: got\n%s\nwant a line with %q", content, want)
	}
}
