//go:build install

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// A machine is a copy of a debootstrapped Debian 12 root booted with
// systemd as PID 1 in its own PID, mount, UTS and network namespaces,
// with a veth on the test's bridge: a small stand-in for a Raspberry Pi.

// testBridge is the host's side of the machines' network.
const (
	testBridge = "brbramble0"
	bridgeIP   = "10.213.0.1"
)

type machine struct {
	t       testing.TB
	name    string
	root    string
	ip      string
	cgroups []string // this machine's cgroup in each host hierarchy
	cmd     *exec.Cmd
	pid     int // the machine's PID 1, as the host sees it
}

// setupBridge creates the bridge the machines' veths join, removed when
// the test ends.
func setupBridge(t testing.TB) {
	t.Helper()
	_ = exec.Command("ip", "link", "del", testBridge).Run() // a crashed earlier run
	cluster.MustRun(t, "ip", "link", "add", testBridge, "type", "bridge")
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", testBridge).Run() })
	cluster.MustRun(t, "ip", "addr", "add", bridgeIP+"/24", "dev", testBridge)
	cluster.MustRun(t, "ip", "link", "set", testBridge, "up")
}

// bootMachine copies base into a fresh folder and boots it.
func bootMachine(t testing.TB, base, name, ip string) *machine {
	t.Helper()
	m := &machine{t: t, name: name, root: filepath.Join(t.TempDir(), name), ip: ip}
	cluster.MustRun(t, "cp", "-a", "--reflink=auto", base, m.root)
	m.writeFile("etc/hostname", name+"\n")
	// debootstrap writes no /etc/hosts; an installed system has one, and
	// the agent gives it to containers.
	m.writeFile("etc/hosts", "127.0.0.1 localhost\n"+ip+" "+name+"\n")
	// No udev here: a getty on the serial console would wait forever for
	// its device, and the machine would never finish booting.
	for _, unit := range []string{"serial-getty@.service", "getty@.service", "console-getty.service"} {
		if err := os.Symlink("/dev/null", filepath.Join(m.root, "etc/systemd/system", unit)); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	m.writeLimitDropIns()
	m.makeCgroups()
	// The two mounts let runc pivot into container roots inside.
	boot := fmt.Sprintf(`for d in %s; do echo $$ > "$d/cgroup.procs" || exit 1; done
exec unshare --pid --fork --mount --uts --net sh -c 'mount --bind %[2]s %[2]s && mount --rbind /sys %[2]s/sys && exec chroot %[2]s /lib/systemd/systemd'`,
		strings.Join(m.cgroups, " "), m.root)
	m.cmd = exec.Command("sh", "-c", boot)
	var out bytes.Buffer
	m.cmd.Stdout, m.cmd.Stderr = &out, &out
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("boot %s: %v", name, err)
	}
	t.Cleanup(m.stop)
	m.pid = m.findInit(&out)
	m.connect()
	m.waitBooted()
	m.mountSplitCPU()
	return m
}

// mountSplitCPU: this host mounts the cpu and cpuacct hierarchies apart,
// so the machine's systemd cannot mount its joint cpu,cpuacct one and
// leaves cpu an empty, read-only folder. Mount the host's two there, as
// runc expects; on a Pi systemd mounts them itself.
func (m *machine) mountSplitCPU() {
	m.mustSh(`cd /sys/fs/cgroup && [ ! -e cpu/cgroup.procs ] || exit 0
mount -o remount,rw /sys/fs/cgroup && rm -f cpu cpuacct && mkdir cpu cpuacct &&
mount -t cgroup -o cpu cgroup cpu && mount -t cgroup -o cpuacct cgroup cpuacct && mount -o remount,ro /sys/fs/cgroup`)
}

// writeLimitDropIns: the test host's root lacks CAP_SYS_RESOURCE, so no
// unit may raise a hard rlimit or lower an OOM score adjustment. These
// drop-ins hold the units at the host's limits; a real Pi needs none.
func (m *machine) writeLimitDropIns() {
	var nofile, nproc syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &nofile); err != nil {
		m.t.Fatal(err)
	}
	if err := syscall.Getrlimit(6 /* RLIMIT_NPROC */, &nproc); err != nil {
		m.t.Fatal(err)
	}
	limits := fmt.Sprintf("[Service]\nLimitNOFILE=%d\nLimitNPROC=%d\n", nofile.Max, nproc.Max)
	m.writeFile("etc/systemd/system/containerd.service.d/test-host.conf", limits+"OOMScoreAdjust=\n")
	for _, unit := range []string{"bramble", "bramble-agent"} {
		m.writeFile("etc/systemd/system/"+unit+".service.d/test-host.conf", limits)
	}
}

// makeCgroups gives the machine a cgroup of its own in every host
// hierarchy; its systemd takes that as its root, so two machines do not
// manage the same system.slice.
func (m *machine) makeCgroups() {
	dirs, _ := filepath.Glob("/sys/fs/cgroup/*/cgroup.procs")
	for _, procs := range dirs {
		parent := filepath.Dir(procs)
		dir := filepath.Join(parent, "bramble-test-"+m.name)
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			m.t.Fatalf("cgroup %s: %v", dir, err)
		}
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			if v, err := os.ReadFile(filepath.Join(parent, f)); err == nil {
				_ = os.WriteFile(filepath.Join(dir, f), v, 0o644)
			}
		}
		m.cgroups = append(m.cgroups, dir)
	}
	if len(m.cgroups) == 0 {
		m.t.Fatal("no cgroup hierarchies under /sys/fs/cgroup")
	}
}

// findInit waits for unshare's child: the machine's PID 1.
func (m *machine) findInit(out *bytes.Buffer) int {
	deadline := time.Now().Add(10 * time.Second)
	path := fmt.Sprintf("/proc/%d/task/%d/children", m.cmd.Process.Pid, m.cmd.Process.Pid)
	for time.Now().Before(deadline) {
		if raw, err := os.ReadFile(path); err == nil {
			if f := strings.Fields(string(raw)); len(f) > 0 {
				pid, err := strconv.Atoi(f[0])
				if err == nil {
					return pid
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	m.t.Fatalf("%s: no PID 1 after 10s\n%s", m.name, out.String())
	return 0
}

// connect moves one end of a veth pair into the machine as eth0.
func (m *machine) connect() {
	host := "vb-" + m.name
	if len(host) > 15 {
		host = host[:15]
	}
	cluster.MustRun(m.t, "ip", "link", "add", host, "type", "veth", "peer", "name", "eth0", "netns", strconv.Itoa(m.pid))
	cluster.MustRun(m.t, "ip", "link", "set", host, "master", testBridge, "up")
	for _, args := range [][]string{{"link", "set", "lo", "up"}, {"addr", "add", m.ip + "/24", "dev", "eth0"},
		{"link", "set", "eth0", "up"}, {"route", "add", "default", "via", bridgeIP}} {
		cluster.MustRun(m.t, "nsenter", append([]string{"-t", strconv.Itoa(m.pid), "-n", "ip"}, args...)...)
	}
}

func (m *machine) waitBooted() {
	deadline := time.Now().Add(90 * time.Second)
	for {
		out, _ := m.sh("systemctl is-system-running")
		state := strings.TrimSpace(out)
		if state == "running" || state == "degraded" {
			return
		}
		if time.Now().After(deadline) {
			jobs, _ := m.sh("systemctl list-jobs --no-pager")
			m.t.Fatalf("%s did not boot in 90s: systemctl is-system-running says %q\n%s", m.name, state, jobs)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// sh runs a shell script inside the machine and returns its output.
func (m *machine) sh(script string, env ...string) (string, error) {
	args := []string{"-t", strconv.Itoa(m.pid), "-m", "-u", "-n", "-p", "-r", "-w",
		"env", "-i", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"}
	args = append(append(args, env...), "sh", "-c", script)
	out, err := exec.Command("nsenter", args...).CombinedOutput()
	return string(out), err
}

// mustSh runs a script inside the machine; a failure fails the test.
func (m *machine) mustSh(script string, env ...string) string {
	m.t.Helper()
	out, err := m.sh(script, env...)
	if err != nil {
		m.t.Fatalf("%s: %s: %v\n%s", m.name, script, err, out)
	}
	return out
}

func (m *machine) writeFile(rel, body string) {
	path := filepath.Join(m.root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

func (m *machine) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(m.root, rel))
	return err == nil
}

// stop kills PID 1, which ends every process in the machine, then
// removes the machine's cgroups.
func (m *machine) stop() {
	if m.pid != 0 {
		_ = syscall.Kill(m.pid, syscall.SIGKILL)
	}
	_ = m.cmd.Wait()
	for _, cg := range m.cgroups {
		removeCgroup(cg)
	}
}

// removeCgroup removes a cgroup and its children, deepest first.
func removeCgroup(dir string) {
	for i := 0; i < 50; i++ {
		var dirs []string
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for j := len(dirs) - 1; j >= 0; j-- {
			_ = syscall.Rmdir(dirs[j])
		}
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
