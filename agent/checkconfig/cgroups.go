package checkconfig

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// checkCgroups reports the cgroup version with its controllers, and the
// memory cgroup, which Raspberry Pi OS boots with disabled.
func checkCgroups(root string) []Check {
	var c Check
	if b, err := readFile(root, "sys/fs/cgroup/cgroup.controllers"); err == nil {
		c = cgroupV2(strings.Fields(string(b)))
	} else {
		c = cgroupV1(root)
	}
	return []Check{c, checkMemoryCgroup(root)}
}

func cgroupV2(have []string) Check {
	c := Check{Name: "cgroups", Status: OK}
	set := map[string]bool{}
	for _, h := range have {
		set[h] = true
	}
	var missing []string
	for _, want := range []string{"memory", "cpu", "pids"} {
		if !set[want] {
			missing = append(missing, want)
		}
	}
	c.Message = "v2, controllers: " + strings.Join(have, " ")
	if len(missing) > 0 {
		c.Status = Fail
		c.Message = fmt.Sprintf("v2, but /sys/fs/cgroup/cgroup.controllers lacks %s: enable them on the kernel command line (see the memory cgroup check)",
			strings.Join(missing, ", "))
	} else if !set["cpuset"] {
		c.Status, c.Message = Warn, c.Message+"\ncpuset is missing: pods cannot be pinned to CPUs (nothing in bramble needs that yet)"
	}
	return c
}

func cgroupV1(root string) Check {
	c := Check{Name: "cgroups", Status: OK, Message: "v1, controllers: memory cpu cpuset pids"}
	if !exists(root, "sys/fs/cgroup") {
		c.Status, c.Message = Fail, "/sys/fs/cgroup is not mounted: mount cgroups (systemd does this at boot)"
		return c
	}
	var missing []string
	for _, ctl := range []string{"memory", "cpu", "cpuset", "pids"} {
		if !exists(root, "sys/fs/cgroup/"+ctl) {
			missing = append(missing, ctl)
		}
	}
	switch {
	case len(missing) == 1 && missing[0] == "cpuset":
		c.Status, c.Message = Warn, "v1; cpuset is not mounted: pods cannot be pinned to CPUs (nothing in bramble needs that yet)"
	case len(missing) > 0:
		c.Status = Fail
		c.Message = fmt.Sprintf("v1, but /sys/fs/cgroup lacks %s: enable the controllers on the kernel command line (see the memory cgroup check)",
			strings.Join(missing, ", "))
	}
	return c
}

// memoryEnabled reads the memory line of /proc/cgroups
// ("#subsys_name hierarchy num_cgroups enabled").
func memoryEnabled(procCgroups []byte) (enabled, found bool) {
	sc := bufio.NewScanner(bytes.NewReader(procCgroups))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 4 && f[0] == "memory" {
			return f[3] == "1", true
		}
	}
	return false, false
}

func checkMemoryCgroup(root string) Check {
	c := Check{Name: "memory cgroup"}
	b, err := readFile(root, "proc/cgroups")
	if err != nil {
		c.Status, c.Message = Fail, fmt.Sprintf("cannot read /proc/cgroups: %v", err)
		return c
	}
	enabled, found := memoryEnabled(b)
	switch {
	case enabled:
		c.Status, c.Message = OK, "enabled"
	case !found:
		c.Status, c.Message = Fail, "this kernel has no memory cgroup (CONFIG_MEMCG): memory limits cannot be enforced; use a kernel built with it"
	default:
		c.Status, c.Message = Fail, "disabled: memory limits cannot be enforced\n"+memoryFix(root)
	}
	return c
}

// memoryFix says how to turn the memory cgroup on for this host's boot
// loader.
func memoryFix(root string) string {
	cmdline, _ := readFile(root, "proc/cmdline")
	note := ""
	if strings.Contains(string(cmdline), "cgroup_disable=memory") {
		note = "the kernel command line has cgroup_disable=memory (the Raspberry Pi firmware adds it); the parameters below override it\n"
	}
	const params = "cgroup_enable=memory cgroup_memory=1"
	model, _ := readFile(root, "proc/device-tree/model")
	switch {
	case exists(root, "boot/firmware/cmdline.txt"):
		return note + "fix: append " + params + " to the single line of /boot/firmware/cmdline.txt, then reboot"
	case exists(root, "boot/cmdline.txt"):
		return note + "fix: append " + params + " to the single line of /boot/cmdline.txt, then reboot"
	case strings.Contains(string(model), "Raspberry Pi"):
		return note + "fix: append " + params + " to the single line of /boot/firmware/cmdline.txt " +
			"(/boot/cmdline.txt before Bookworm), then reboot"
	}
	return note + "fix: add " + params + " to the kernel command line (with GRUB: GRUB_CMDLINE_LINUX in " +
		"/etc/default/grub, then update-grub), then reboot"
}
