package e2e

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

// testLocalhost: the client container of pod pair reached the server
// container, which listens on 127.0.0.1 only, over localhost.
func testLocalhost(t *testing.T, s *cluster.Server) {
	waitPodIPs(t, s, "app=pair", 1)
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, err := s.Kubectl("logs", "pair", "-n", "net", "-c", "client")
		return err == nil && strings.HasPrefix(out, "pair 127.0.0.1:")
	}, "the client container's log to show the server container's answer over localhost")
}

// testOfflineReboot stops the server and the agent, takes the pods'
// namespaces away and kills their containers, as a reboot would, and
// starts the agent alone: the web pods come back with their addresses.
func testOfflineReboot(t *testing.T, s *cluster.Server, a *cluster.Agent, d *runtimetest.Daemon, ns string, ips map[string]netip.Addr) {
	s.Stop()
	a.Stop(t)
	for _, kind := range []string{"netns", "utsns"} {
		dir := filepath.Join(a.DataDir, "agent", "run", kind)
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if err := unix.Unmount(filepath.Join(dir, e.Name()), unix.MNT_DETACH); err != nil {
				t.Fatalf("unpin %s: %v", e.Name(), err)
			}
		}
	}
	for _, line := range strings.Split(cluster.Ctr(t, d, ns, "tasks", "ls"), "\n")[1:] {
		if f := strings.Fields(line); len(f) == 3 {
			cluster.Ctr(t, d, ns, "tasks", "kill", "-s", "SIGKILL", f[0])
		}
	}
	a.Restart(t)
	for name, ip := range ips {
		url := fmt.Sprintf("http://%s/", net.JoinHostPort(ip.String(), "8080"))
		if body := mustGet(t, url); !strings.HasPrefix(body, name+" ") {
			t.Errorf("after the offline reboot, %s answered %q, want pod %s", url, body, name)
		}
	}
	s.Start()
}

// testAddressFreed deletes the published pod and checks host-local no
// longer holds its address and its hostPort rules are gone.
func testAddressFreed(t *testing.T, s *cluster.Server, a *cluster.Agent, hostPort int) {
	ip := waitPodIPs(t, s, "app=published", 1)["published"]
	held := filepath.Join(a.DataDir, "agent", "network", "ipam", "bramble", ip.String())
	if _, err := os.Stat(held); err != nil {
		t.Fatalf("host-local's file for %s before the deletion: %v", ip, err)
	}
	s.MustKubectl("delete", "pod", "published", "-n", "net", "--wait=true", "--timeout=60s")
	cluster.WaitFor(t, 30*time.Second, func() bool {
		_, err := os.Stat(held)
		return os.IsNotExist(err)
	}, fmt.Sprintf("host-local to free %s", ip))
	out, err := exec.Command("iptables", "-t", "nat", "-S").CombinedOutput()
	if err != nil {
		t.Fatalf("iptables -t nat -S: %v: %s", err, out)
	}
	if rule := fmt.Sprintf("--dport %d ", hostPort); strings.Contains(string(out), rule) {
		t.Errorf("portmap rules for hostPort %d left after the pod's deletion:\n%s", hostPort, out)
	}
}
