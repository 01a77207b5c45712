package checkconfig

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRoot writes files (path -> content; a path ending in "/" is a
// directory) under a new temporary root.
func fakeRoot(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const (
	cgroupsOn = "#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpuset\t3\t19\t1\ncpu\t1\t19\t1\nmemory\t9\t80\t1\npids\t4\t80\t1\n"
	// A Raspberry Pi OS kernel as it boots: the memory cgroup is off.
	cgroupsPiOff = "#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpuset\t0\t1\t1\ncpu\t0\t1\t1\nmemory\t0\t1\t0\npids\t0\t1\t1\n"
	filesystems  = "nodev\tsysfs\nnodev\ttmpfs\n\text4\nnodev\toverlay\n"
)

// piBookworm is a Raspberry Pi 4 on Bookworm (cgroup v2) before the fix.
func piBookworm() map[string]string {
	return map[string]string{
		"proc/sys/kernel/osrelease":        "6.6.31+rpt-rpi-v8\n",
		"proc/cgroups":                     cgroupsPiOff,
		"proc/filesystems":                 filesystems,
		"proc/cmdline":                     "coherent_pool=1M 8250.nr_uarts=0 cgroup_disable=memory console=tty1 root=PARTUUID=abc-02 rootwait\n",
		"proc/device-tree/model":           "Raspberry Pi 4 Model B Rev 1.4\x00",
		"sys/fs/cgroup/cgroup.controllers": "cpuset cpu io pids\n",
		"boot/firmware/cmdline.txt":        "console=tty1 root=PARTUUID=abc-02 rootwait\n",
	}
}

func debianV1() map[string]string {
	return map[string]string{
		"proc/sys/kernel/osrelease": "6.1.0-26-amd64\n",
		"proc/cgroups":              cgroupsOn,
		"proc/filesystems":          filesystems,
		"sys/fs/cgroup/memory/":     "", "sys/fs/cgroup/cpu/": "", "sys/fs/cgroup/cpuset/": "", "sys/fs/cgroup/pids/": "",
	}
}

func with(base map[string]string, changes map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range changes {
		if v == "-" {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// TestHostChecks runs the kernel, cgroup and overlay checks on fake roots.
func TestHostChecks(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  map[string]Status
		says  map[string][]string
	}{
		{name: "debian v1 all good", files: debianV1(),
			want: map[string]Status{"kernel": OK, "cgroups": OK, "memory cgroup": OK, "overlayfs": OK},
			says: map[string][]string{"cgroups": {"v1"}}},
		{name: "pi bookworm, memory cgroup off", files: piBookworm(),
			want: map[string]Status{"kernel": OK, "cgroups": Fail, "memory cgroup": Fail, "overlayfs": OK},
			says: map[string][]string{
				"memory cgroup": {"disabled", "append cgroup_enable=memory cgroup_memory=1 to the single line of /boot/firmware/cmdline.txt, then reboot", "cgroup_disable=memory"},
				"cgroups":       {"v2", "lacks memory"},
			}},
		{name: "pi bullseye, /boot/cmdline.txt", files: with(piBookworm(), map[string]string{"boot/firmware/cmdline.txt": "-", "boot/cmdline.txt": "x\n"}),
			want: map[string]Status{"memory cgroup": Fail},
			says: map[string][]string{"memory cgroup": {"/boot/cmdline.txt, then reboot"}}},
		{name: "pi, boot partition not mounted", files: with(piBookworm(), map[string]string{"boot/firmware/cmdline.txt": "-"}),
			want: map[string]Status{"memory cgroup": Fail},
			says: map[string][]string{"memory cgroup": {"/boot/firmware/cmdline.txt (/boot/cmdline.txt before Bookworm)"}}},
		{name: "pi after the fix", files: with(piBookworm(), map[string]string{"proc/cgroups": cgroupsOn, "sys/fs/cgroup/cgroup.controllers": "cpuset cpu io memory pids\n"}),
			want: map[string]Status{"cgroups": OK, "memory cgroup": OK}},
		{name: "x86 memory off", files: with(debianV1(), map[string]string{"proc/cgroups": cgroupsPiOff}),
			want: map[string]Status{"memory cgroup": Fail},
			says: map[string][]string{"memory cgroup": {"GRUB_CMDLINE_LINUX"}}},
		{name: "no memcg in kernel", files: with(debianV1(), map[string]string{"proc/cgroups": "#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpu\t1\t1\t1\n"}),
			want: map[string]Status{"memory cgroup": Fail}, says: map[string][]string{"memory cgroup": {"CONFIG_MEMCG"}}},
		{name: "v1 without pids", files: with(debianV1(), map[string]string{"sys/fs/cgroup/pids/": "-"}),
			want: map[string]Status{"cgroups": Fail}, says: map[string][]string{"cgroups": {"lacks pids"}}},
		{name: "v1 without cpuset", files: with(debianV1(), map[string]string{"sys/fs/cgroup/cpuset/": "-"}),
			want: map[string]Status{"cgroups": Warn}},
		{name: "v2 without cpuset", files: with(debianV1(), map[string]string{"sys/fs/cgroup/cgroup.controllers": "cpu io memory pids\n"}),
			want: map[string]Status{"cgroups": Warn}},
		{name: "old kernel", files: with(debianV1(), map[string]string{"proc/sys/kernel/osrelease": "4.9.0-rpi\n"}),
			want: map[string]Status{"kernel": Warn}},
		{name: "ancient kernel", files: with(debianV1(), map[string]string{"proc/sys/kernel/osrelease": "3.2.0\n"}),
			want: map[string]Status{"kernel": Fail}, says: map[string][]string{"kernel": {"3.10"}}},
		{name: "overlay module not loaded", files: with(debianV1(), map[string]string{
			"proc/filesystems": "nodev\tsysfs\n\text4\n", "lib/modules/6.1.0-26-amd64/kernel/fs/overlayfs/overlay.ko.xz": "x"}),
			want: map[string]Status{"overlayfs": Warn}, says: map[string][]string{"overlayfs": {"modprobe overlay"}}},
		{name: "no overlay at all", files: with(debianV1(), map[string]string{"proc/filesystems": "nodev\tsysfs\n\text4\n"}),
			want: map[string]Status{"overlayfs": Fail}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := fakeRoot(t, tt.files)
			var r Report
			r.Checks = append(append([]Check{checkKernel(root)}, checkCgroups(root)...), checkOverlay(root))
			for name, want := range tt.want {
				c, ok := r.Find(name)
				if !ok || c.Status != want {
					t.Errorf("%s: got %s (%s), want %s", name, c.Status, c.Message, want)
				}
				for _, s := range tt.says[name] {
					if !strings.Contains(c.Message, s) {
						t.Errorf("%s: got message %q, want it to say %q", name, c.Message, s)
					}
				}
			}
		})
	}
}

// TestPrintPiMemoryFix runs the whole check on a Pi with the memory cgroup
// off and checks the printed report carries the fix and fails.
func TestPrintPiMemoryFix(t *testing.T) {
	root := fakeRoot(t, piBookworm())
	r := Run(context.Background(), Config{Root: root, ContainerdSocket: filepath.Join(root, "none.sock"), Path: root,
		euid: func() int { return 1000 }})
	var out bytes.Buffer
	if !r.Print(&out) {
		t.Fatalf("Print: got failed=false, want true\n%s", out.String())
	}
	for _, want := range []string{
		"[fail] memory cgroup: disabled: memory limits cannot be enforced\n",
		"       fix: append cgroup_enable=memory cgroup_memory=1 to the single line of /boot/firmware/cmdline.txt, then reboot\n",
		"[fail] containerd: no socket at ",
		"[fail] runc: not found in PATH: install it (apt-get install runc)\n",
		"[warn] root: running as uid 1000",
		"[ok]   iptables: not required",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.HasSuffix(out.String(), "failed\n") {
		t.Errorf("report has no summary line:\n%s", out.String())
	}
}

func TestPrintAllGood(t *testing.T) {
	r := Report{Checks: []Check{{Name: "a", Status: OK, Message: "fine"}, {Name: "b", Status: Warn, Message: "hmm\nsecond line"}}}
	var out bytes.Buffer
	if r.Print(&out) {
		t.Errorf("Print: got failed=true, want false")
	}
	want := "[ok]   a: fine\n[warn] b: hmm\n       second line\n1 ok, 1 warnings, 0 failed\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestKernelVersion(t *testing.T) {
	tests := []struct {
		in           string
		major, minor int
		err          bool
	}{
		{"6.1.0-rpi7-rpi-v8", 6, 1, false},
		{"5.15.0-1034-raspi", 5, 15, false},
		{"4.19", 4, 19, false},
		{"6.18+", 6, 18, false},
		{"6", 0, 0, true},
		{"x.y.z", 0, 0, true},
	}
	for _, tt := range tests {
		ma, mi, err := kernelVersion(tt.in)
		if ma != tt.major || mi != tt.minor || (err != nil) != tt.err {
			t.Errorf("kernelVersion(%q): got %d.%d, %v, want %d.%d, error %v", tt.in, ma, mi, err, tt.major, tt.minor, tt.err)
		}
	}
}
