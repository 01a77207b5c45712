package cluster

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Pod networking of test clusters: many run at once on one machine, so
// each server gets a cluster CIDR of its own (a random /20 of
// 10.128.0.0/9, /24 per node) and each agent a bridge of its own, removed
// with the namespaces its pods pinned when the test ends.

// clusterCIDR is a random /20 of 10.128.0.0/9 for one test server.
func clusterCIDR() string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	n := binary.BigEndian.Uint16(b[:]) % 2048 // 2^11 /20s in a /9
	return fmt.Sprintf("10.%d.%d.0/20", 128+n>>4, (n&15)<<4)
}

// BridgeName is a random pod bridge name for one test agent.
func BridgeName() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("bt%x", b)
}

// networkArgs are the node flags of a test agent with its own bridge;
// its pinned namespaces and bridge go when the test ends.
func networkArgs(t testing.TB, dataDir string) []string {
	t.Helper()
	bridge := BridgeName()
	t.Cleanup(func() { RemovePodNetwork(t, dataDir, bridge) })
	return []string{"--cni-bridge", bridge}
}

// RemovePodNetwork unpins the namespaces an agent's pods left (so the
// test's folder can go) and deletes its bridge.
func RemovePodNetwork(t testing.TB, dataDir, bridge string) {
	for _, kind := range []string{"netns", "utsns"} {
		dir := filepath.Join(dataDir, "agent", "run", kind)
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			_ = unix.Unmount(filepath.Join(dir, e.Name()), unix.MNT_DETACH)
		}
	}
	if out, err := exec.Command("ip", "link", "del", bridge).CombinedOutput(); err != nil {
		if _, statErr := os.Stat("/sys/class/net/" + bridge); statErr == nil {
			t.Logf("remove bridge %s: %v: %s", bridge, err, out)
		}
	}
}

func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name || len(a) > len(name) && a[:len(name)+1] == name+"=" {
			return true
		}
	}
	return false
}
