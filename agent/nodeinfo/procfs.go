package nodeinfo

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cpuInfoField returns the first value of field in /proc/cpuinfo text.
func cpuInfoField(cpuinfo []byte, field string) string {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == field {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Architecture returns the OCI-style architecture of this node: goarch for
// everything but arm, whose variant ("arm/v6", "arm/v7") comes from
// /proc/cpuinfo, or from goarm (the GOARM the binary was built with) when
// cpuinfo says nothing useful.
func Architecture(goarch, goarm string, cpuinfo []byte) string {
	if goarch != "arm" {
		return goarch
	}
	if v := armVariant(cpuinfo); v != "" {
		return "arm/" + v
	}
	if n := strings.TrimSuffix(goarm, ",softfloat"); n != "" {
		return "arm/v" + strings.TrimSuffix(n, ",hardfloat")
	}
	return "arm"
}

// armVariant reads the ARM architecture version of a 32-bit userland.
// The ARM1176 of the Pi Zero and Pi 1 reports "CPU architecture: 7" but is
// ARMv6, which its model name gives away. A 64-bit CPU running 32-bit code
// ("8" or "AArch64") runs ARMv7 binaries.
func armVariant(cpuinfo []byte) string {
	if strings.Contains(cpuInfoField(cpuinfo, "model name"), "ARMv6") {
		return "v6"
	}
	switch a := cpuInfoField(cpuinfo, "CPU architecture"); {
	case a == "":
		return ""
	case a == "8" || strings.EqualFold(a, "AArch64"):
		return "v7"
	case strings.HasPrefix(a, "7"), strings.HasPrefix(a, "6"), strings.HasPrefix(a, "5"):
		return "v" + a[:1]
	}
	return ""
}

// osPrettyName returns PRETTY_NAME from /etc/os-release text, or "Linux".
func osPrettyName(osRelease []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(osRelease))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || k != "PRETTY_NAME" {
			continue
		}
		if u, err := strconv.Unquote(v); err == nil {
			v = u
		} else {
			v = strings.Trim(v, `"'`)
		}
		if v != "" {
			return v
		}
	}
	return "Linux"
}

// boardModel returns /proc/device-tree/model text without its trailing NUL.
func boardModel(model []byte) string {
	return strings.TrimSpace(strings.TrimRight(string(model), "\x00"))
}

// BoardLabel turns a board model into a label value: runs of characters a
// label value may not hold become "-", cut to 63 characters.
// "Raspberry Pi 4 Model B Rev 1.4" becomes "Raspberry-Pi-4-Model-B-Rev-1.4".
func BoardLabel(model string) string {
	var b strings.Builder
	dash := false
	for _, r := range model {
		ok := r < 128 && (r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	s := b.String()
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-_.")
}

// pidsInUse reads the number of kernel scheduling entities (processes and
// threads: each takes a PID) from /proc/loadavg text ("0.1 0.2 0.3 2/345 678").
func pidsInUse(loadavg []byte) (int64, error) {
	f := strings.Fields(string(loadavg))
	if len(f) < 4 {
		return 0, fmt.Errorf("/proc/loadavg: got %d fields, want 5", len(f))
	}
	_, total, ok := strings.Cut(f[3], "/")
	n, err := strconv.ParseInt(total, 10, 64)
	if !ok || err != nil || n < 0 {
		return 0, fmt.Errorf("/proc/loadavg: field 4 %q: want running/total", f[3])
	}
	return n, nil
}

// readInt reads a file holding one integer, such as /proc/sys/kernel/pid_max.
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// temperature reads the thermal zones under root/sys/class/thermal and
// returns the CPU's in °C: a zone whose type names the CPU or SoC
// ("cpu-thermal" on a Pi, "x86_pkg_temp"), else the hottest zone.
func temperature(root string) (float64, bool) {
	zones, _ := filepath.Glob(filepath.Join(root, "sys/class/thermal/thermal_zone*"))
	best, found := 0.0, false
	for _, z := range zones {
		milli, err := readInt(filepath.Join(z, "temp"))
		if err != nil || milli <= -273000 {
			continue
		}
		c := float64(milli) / 1000
		kind, _ := os.ReadFile(filepath.Join(z, "type"))
		k := strings.ToLower(string(kind))
		if strings.Contains(k, "cpu") || strings.Contains(k, "soc") || strings.Contains(k, "x86_pkg") {
			return c, true
		}
		if !found || c > best {
			best, found = c, true
		}
	}
	return best, found
}
