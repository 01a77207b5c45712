package sandbox

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strings"

	"testing"

	"golang.org/x/sys/unix"
)

var testCIDR = netip.MustParsePrefix("10.88.0.0/24")

func TestSetupAddressesPodsAndTeardownFreesThem(t *testing.T) {
	m := newTestManager(t, t.TempDir(), true)
	inPrivateNet(t, func() error {
		if _, err := m.Setup(bg, testPod("early", 9)); !errors.Is(err, ErrNoPodCIDR) {
			return fmt.Errorf("Setup before the pod range: got %v, want ErrNoPodCIDR", err)
		}
		if err := m.SetPodCIDR(testCIDR); err != nil {
			return err
		}
		a, err := m.Setup(bg, testPod("a", 1))
		if err != nil {
			return err
		}
		b, err := m.Setup(bg, testPod("b", 2))
		if err != nil {
			return err
		}
		if len(a.IPs) != 1 || len(b.IPs) != 1 || a.IPs[0] == b.IPs[0] || !testCIDR.Contains(a.IPs[0]) || !testCIDR.Contains(b.IPs[0]) {
			return fmt.Errorf("pod IPs: got %v and %v, want two different addresses of %s", a.IPs, b.IPs, testCIDR)
		}
		in, err := addrsIn(a.NetNS)
		if err != nil || !slices.Contains(in, a.IPs[0]) || !slices.Contains(in, netip.MustParseAddr("127.0.0.1")) {
			return fmt.Errorf("addresses inside pod a's namespace: got %v (%v), want %s and 127.0.0.1", in, err, a.IPs[0])
		}
		hosts, _ := os.ReadFile(a.HostsFile)
		if !strings.Contains(string(hosts), a.IPs[0].String()+"\ta\n") {
			return fmt.Errorf("pod a's hosts file: got %q, want a line %q", hosts, a.IPs[0].String()+"\ta")
		}
		if err := m.Teardown(bg, string(testPod("a", 1).UID)); err != nil {
			return err
		}
		held := heldAddresses(m)
		if held[a.IPs[0].String()] || !held[b.IPs[0].String()] || len(held) != 1 {
			return fmt.Errorf("after pod a's teardown host-local holds %v, want only b's %s", held, b.IPs[0])
		}
		if _, err := os.Stat(a.NetNS); !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("pod a's namespace file after teardown: got %v, want it gone", err)
		}
		return m.Teardown(bg, string(testPod("b", 2).UID))
	})
}

func TestUTSNamespaceHasThePodsHostname(t *testing.T) {
	m := newTestManager(t, t.TempDir(), true)
	inPrivateNet(t, func() error {
		if err := m.SetPodCIDR(testCIDR); err != nil {
			return err
		}
		pod := testPod("web-0", 3)
		pod.Spec.Hostname, pod.Spec.Subdomain = "db", "store"
		sb, err := m.Setup(bg, pod)
		if err != nil {
			return err
		}
		host, err := hostnameIn(sb.UTSNS)
		if err != nil || host != "db" {
			return fmt.Errorf("hostname in the pod's UTS namespace: got %q (%v), want db", host, err)
		}
		hosts, _ := os.ReadFile(sb.HostsFile)
		if want := sb.IPs[0].String() + "\tdb.store.default.svc.cluster.local\tdb\n"; !strings.Contains(string(hosts), want) {
			return fmt.Errorf("hosts file: got %q, want a line %q", hosts, want)
		}
		return m.Teardown(bg, string(pod.UID))
	})
}

// After a reboot the namespace files are there but pinned no more; a new
// agent sets the pod up again with the address host-local still holds.
func TestRebootKeepsThePodsAddress(t *testing.T) {
	dir := t.TempDir()
	inPrivateNet(t, func() error {
		m := newTestManager(t, dir, true)
		if err := m.SetPodCIDR(testCIDR); err != nil {
			return err
		}
		_, _ = m.Setup(bg, testPod("first", 4)) // takes .2, so the pod's is not the first free one
		before, err := m.Setup(bg, testPod("p", 5))
		if err != nil {
			return err
		}
		if err := m.Teardown(bg, string(testPod("first", 4).UID)); err != nil {
			return err
		}
		for _, f := range []string{before.NetNS, before.UTSNS} {
			if err := unix.Unmount(f, unix.MNT_DETACH); err != nil {
				return err
			}
		}
		m2 := newTestManager(t, dir, true)
		if err := m2.SetPodCIDR(testCIDR); err != nil {
			return err
		}
		after, err := m2.Setup(bg, testPod("p", 5))
		if err != nil {
			return err
		}
		if !slices.Equal(before.IPs, after.IPs) || !isMounted(after.NetNS) {
			return fmt.Errorf("after the reboot: got %v (pinned %v), want %v again", after.IPs, isMounted(after.NetNS), before.IPs)
		}
		in, err := addrsIn(after.NetNS)
		if err != nil || !slices.Contains(in, before.IPs[0]) {
			return fmt.Errorf("addresses in the new namespace: got %v (%v), want %s", in, err, before.IPs[0])
		}
		return m2.Teardown(bg, string(testPod("p", 5).UID))
	})
}

func hostnameIn(path string) (string, error) {
	type answer struct {
		name string
		err  error
	}
	c := make(chan answer, 1)
	go func() {
		lockForever()
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			c <- answer{err: err}
			return
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWUTS); err != nil {
			c <- answer{err: err}
			return
		}
		var u unix.Utsname
		err = unix.Uname(&u)
		c <- answer{unix.ByteSliceToString(u.Nodename[:]), err}
	}()
	a := <-c
	return a.name, a.err
}
