//go:build install

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// placeBinaries copies a release's amd64 binaries and install.sh into the
// machine, as an airgapped install expects them; file is the release file
// installed as bramble.
func placeBinaries(t *testing.T, m *machine, release, file string) {
	t.Helper()
	for src, dst := range map[string]string{file: "usr/local/bin/bramble",
		"bramble-log-amd64": "usr/local/bin/bramble-log", "install.sh": "root/install.sh"} {
		data, err := os.ReadFile(filepath.Join(release, src))
		if err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(m.root, dst+".new")
		if err := os.WriteFile(tmp, data, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(m.root, dst)); err != nil {
			t.Fatal(err)
		}
	}
}

// upgrade re-runs an install with the newer release (or re-runs it for
// the other build): the service restarts on the new binary, of the build
// wanted, and stays active.
func upgrade(t *testing.T, m *machine, service string, want build, install func()) {
	t.Helper()
	pid := m.mustSh("systemctl show -p MainPID --value " + service)
	install()
	if state := strings.TrimSpace(m.mustSh("systemctl is-active " + service)); state != "active" {
		t.Fatalf("%s after the upgrade: got %s, want active", service, state)
	}
	if got := m.mustSh("systemctl show -p MainPID --value " + service); got == pid {
		t.Errorf("%s: MainPID %s did not change: the upgrade did not restart it", service, strings.TrimSpace(pid))
	}
	if v := m.mustSh("bramble version"); !strings.Contains(v, ".next ") {
		t.Errorf("%s: bramble version after the upgrade: got %q, want the .next release", m.name, v)
	}
	wantBuild(t, m, want)
}

// build is a build of bramble: the full one or the agent-only one.
type build bool

const (
	full      build = false
	agentOnly build = true
)

func (b build) String() string {
	if b == agentOnly {
		return "agent-only"
	}
	return "full"
}

// wantBuild checks the build of the machine's bramble by its version line.
func wantBuild(t *testing.T, m *machine, want build) {
	t.Helper()
	v := strings.TrimSpace(m.mustSh("bramble version"))
	if got := build(strings.HasSuffix(v, " (agent-only build)")); got != want {
		t.Errorf("%s: bramble version: got %q (the %s build), want the %s build", m.name, v, got, want)
	}
}

// withoutAgentBuild makes a copy of a release folder as releases before
// the agent-only build were: no bramble-agent-ARCH files or their
// SHA256SUMS lines. The other files are symlinks.
func withoutAgentBuild(t *testing.T, release string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(release)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if name := e.Name(); !strings.HasPrefix(name, "bramble-agent-") && name != "SHA256SUMS" {
			if err := os.Symlink(filepath.Join(release, name), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	sums, err := os.ReadFile(filepath.Join(release, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.SplitAfter(string(sums), "\n") {
		if f := strings.Fields(line); len(f) == 2 && !strings.HasPrefix(strings.TrimPrefix(f[1], "*"), "bramble-agent-") {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runningTasks lists the agent's containerd tasks with their PIDs.
func runningTasks(t *testing.T, m *machine) string {
	t.Helper()
	return strings.TrimSpace(m.mustSh("ctr -n bramble tasks ls | sort"))
}

// sameTasks checks that the agent's containers outlived a restart of
// bramble (KillMode=process): the same tasks with the same PIDs.
func sameTasks(t *testing.T, m *machine, want, after string) {
	t.Helper()
	if got := runningTasks(t, m); got != want {
		t.Errorf("containers after %s: got %q, want the same tasks and PIDs %q (KillMode=process)", after, got, want)
	}
}

// uninstall lints and runs the uninstall script install.sh wrote, then
// looks for anything left.
func uninstall(t *testing.T, m *machine, service string) {
	t.Helper()
	script := filepath.Join(m.root, "usr/local/bin", service+"-uninstall.sh")
	if out, err := exec.Command("shellcheck", script).CombinedOutput(); err != nil {
		t.Errorf("shellcheck %s-uninstall.sh: %v\n%s", service, err, out)
	}
	t.Logf("%s uninstall:\n%s", service, m.mustSh(service+"-uninstall.sh"))
	for _, rel := range []string{"etc/systemd/system/" + service + ".service", "etc/systemd/system/" + service + ".service.env",
		"etc/systemd/system/" + service + ".service.d", "usr/local/bin/bramble", "usr/local/bin/bramble-log",
		"usr/local/bin/" + service + "-uninstall.sh", "var/lib/bramble", "etc/bramble"} {
		if m.exists(rel) {
			t.Errorf("%s: /%s is left after %s-uninstall.sh", m.name, rel, service)
		}
	}
	if out := m.mustSh("systemctl list-unit-files --no-legend " + service + ".service | wc -l"); strings.TrimSpace(out) != "0" {
		t.Errorf("%s: systemd still knows %s.service after the uninstall", m.name, service)
	}
	if out, _ := m.sh("pgrep -x bramble; pgrep -x bramble-log; ctr -n bramble tasks ls -q"); strings.TrimSpace(out) != "" {
		t.Errorf("%s: bramble processes or containers left after the uninstall: %q", m.name, out)
	}
}

// mustKubectl runs kubectl against a machine's server (a cluster.Server
// made from its kubeconfig, so not started by the harness).
func mustKubectl(t *testing.T, s *cluster.Server, args ...string) string {
	t.Helper()
	out, errOut, err := s.Kubectl(args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}
