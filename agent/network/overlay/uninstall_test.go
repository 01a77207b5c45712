package overlay_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/agent/network/nft"
	"github.com/bramble-edge/bramble/agent/network/overlay"
)

// uninstallNetworkPart is the pod network part of the uninstall script
// packaging/install.sh writes: from its "# Pod networking" comment up to
// the next comment.
func uninstallNetworkPart(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "packaging", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(t.TempDir(), "install-lib.sh")
	body := strings.TrimSuffix(strings.TrimSpace(string(src)), `main "$@"`) // source it without running it
	if err := os.WriteFile(lib, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("sh", "-c", `SERVICE=bramble-agent DATA_DIR=/var/lib/bramble BIN_DIR=/usr/local/bin CONTAINERD_NS=bramble; . "$1"; uninstall_text`, "sh", lib).Output()
	if err != nil {
		t.Fatalf("uninstall_text: %v", err)
	}
	script := string(out)
	start := strings.Index(script, "# Pod networking")
	if start < 0 {
		t.Fatalf("the uninstall script has no pod networking part:\n%s", script)
	}
	part := script[start:]
	lines := strings.Split(part, "\n")
	var keep []string
	for i, l := range lines {
		if i > 0 && strings.HasPrefix(l, "# ") && !strings.HasPrefix(lines[i-1], "# ") {
			break
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// TestUninstallRemovesPodNetwork: the uninstall script's network part,
// run in a netns where the overlay ran (vxlan.1, routes, table inet
// bramble) beside a pod bridge and another table, removes bramble's and
// keeps the other table.
func TestUninstallRemovesPodNetwork(t *testing.T) {
	part := uninstallNetworkPart(t)
	a, b := twoNodes(t, overlay.BackendVXLAN)
	a.reconcile(t, a, b)
	c, err := nft.Open(int(a.ns.Handle))
	if err != nil {
		t.Fatal(err)
	}
	_, cluster, _ := net.ParseCIDR("10.42.0.0/16")
	if err := overlay.ApplyRules(c, cluster, "cni0", "vxlan.1"); err != nil {
		t.Fatal(err)
	}
	a.ns.Run(t, "ip", "link", "add", "cni0", "type", "bridge")
	a.ns.Run(t, "nft", "add", "table", "inet", "other")
	a.ns.Run(t, "sh", "-c", part)
	if got := a.ns.Run(t, "ip", "-br", "link"); strings.Contains(got, "cni0") || strings.Contains(got, "vxlan.1") {
		t.Errorf("links left after the uninstall:\n%s", got)
	}
	if got := a.ns.Run(t, "ip", "route", "show", "proto", "98"); got != "" {
		t.Errorf("overlay routes left: %q", got)
	}
	if got := a.ns.Run(t, "nft", "list", "tables"); strings.Contains(got, "bramble") || !strings.Contains(got, "inet other") {
		t.Errorf("tables after the uninstall: got %q, want inet other only", got)
	}
}
