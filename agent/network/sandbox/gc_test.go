package sandbox

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A restarted agent tears down the sandboxes of pods that are gone and
// frees an address no record holds (an ADD cut short by a crash).
func TestGCRemovesGonePodsAndStrayAddresses(t *testing.T) {
	dir := t.TempDir()
	inPrivateNet(t, func() error {
		m := newTestManager(t, dir, true)
		if err := m.SetPodCIDR(testCIDR); err != nil {
			return err
		}
		var kept string
		for i := range 3 {
			sb, err := m.Setup(bg, testPod("p"+strconv.Itoa(i), 10+i))
			if err != nil {
				return err
			}
			if i == 1 {
				kept = sb.IPs[0].String()
			}
		}
		stray := filepath.Join(m.cfg.IPAMDir(), NetworkName, "10.88.0.200")
		if err := os.WriteFile(stray, []byte("crashed-pod\r\neth0"), 0o644); err != nil {
			return err
		}
		m2 := newTestManager(t, dir, true)
		keepUID := string(testPod("p1", 11).UID)
		if err := m2.GC(bg, func(uid string) bool { return uid == keepUID }); err != nil {
			return err
		}
		if held := heldAddresses(m2); len(held) != 1 || !held[kept] {
			return fmt.Errorf("after GC host-local holds %v, want only the kept pod's %s", held, kept)
		}
		if n := dirLen(m2.cfg.runDir(netNS)); n != 1 {
			return fmt.Errorf("after GC: %d pinned network namespaces, want 1", n)
		}
		if err := m2.Teardown(bg, keepUID); err != nil {
			return err
		}
		return vethsLeft(0)
	})
}

// The bridge is all that stays in the namespace once every pod is gone.
func vethsLeft(want int) error {
	ifs, err := net.Interfaces()
	if err != nil {
		return err
	}
	n := 0
	for _, i := range ifs {
		if i.Name != "lo" && i.Name != "brtest0" {
			n++
		}
	}
	if n != want {
		return fmt.Errorf("interfaces besides lo and the bridge: got %d, want %d", n, want)
	}
	return nil
}

// cyclesEnv raises the create/delete cycles of TestNoLeakAfterManyCycles
// (the 1,000: BRAMBLE_SANDBOX_CYCLES=1000).
const cyclesEnv = "BRAMBLE_SANDBOX_CYCLES"

// Pods made and deleted many times, three at a time, against the real
// plugins: nothing is left held, pinned, recorded or plugged in. A /26
// holds 61 pod addresses, so a leak of one per cycle fills it fast.
func TestNoLeakAfterManyCycles(t *testing.T) {
	cycles := 200
	if s := os.Getenv(cyclesEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("%s: %v", cyclesEnv, err)
		}
		cycles = n
	}
	m := newTestManager(t, t.TempDir(), true)
	inPrivateNet(t, func() error {
		if err := m.SetPodCIDR(netip.MustParsePrefix("10.88.0.0/26")); err != nil {
			return err
		}
		for i := range cycles {
			pod := testPod("c", i)
			if i%10 == 0 { // portmap's rules too, on a tenth (they are slow)
				pod.Spec.Containers[0].Ports[0].HostPort = int32(20000 + i%3)
			}
			if _, err := m.Setup(bg, pod); err != nil {
				return fmt.Errorf("cycle %d: %w", i, err)
			}
			if i >= 2 {
				if err := m.Teardown(bg, string(testPod("c", i-2).UID)); err != nil {
					return fmt.Errorf("cycle %d: %w", i, err)
				}
			}
		}
		for i := max(cycles-2, 0); i < cycles; i++ {
			if err := m.Teardown(bg, string(testPod("c", i).UID)); err != nil {
				return err
			}
		}
		if held := heldAddresses(m); len(held) != 0 {
			return fmt.Errorf("after %d cycles host-local holds %v, want none", cycles, held)
		}
		for _, d := range []string{m.cfg.runDir(netNS), m.cfg.runDir(utsNS), m.cfg.recordsDir()} {
			if n := dirLen(d); n != 0 {
				return fmt.Errorf("after %d cycles %s has %d entries, want none", cycles, d, n)
			}
		}
		if err := hostPortRulesLeft(); err != nil {
			return err
		}
		return vethsLeft(0)
	})
}

// hostPortRulesLeft fails when portmap left a pod's DNAT chain behind.
func hostPortRulesLeft() error {
	out, err := exec.Command("iptables", "-t", "nat", "-S").CombinedOutput()
	if err != nil {
		return fmt.Errorf("iptables -t nat -S: %v: %s", err, out)
	}
	if strings.Contains(string(out), "CNI-DN-") {
		return fmt.Errorf("portmap rules left after every pod's teardown:\n%s", out)
	}
	return nil
}
