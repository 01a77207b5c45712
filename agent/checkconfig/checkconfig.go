// Package checkconfig is `bramble check-config`: it checks that this host
// can run the agent (kernel, cgroups, the memory cgroup, overlayfs, the
// kernel modules pod networking needs, containerd and runc, root) and says
// what to fix.
package checkconfig

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

// Status is a check's outcome.
type Status string

// The outcomes: Fail makes the command exit non-zero; Warn does not.
const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Check is one finding. Message says what was found and, unless the
// status is OK, what to do about it.
type Check struct {
	Name    string
	Status  Status
	Message string
}

// Report is every check, in the order run.
type Report struct {
	Checks []Check
}

// DefaultContainerdSocket is where Debian's and Raspberry Pi OS's
// containerd listens.
const DefaultContainerdSocket = "/run/containerd/containerd.sock"

// Config says what to check.
type Config struct {
	// ContainerdSocket defaults to DefaultContainerdSocket.
	ContainerdSocket string
	// DataDir is the agent's data directory; empty skips its check.
	DataDir string
	// Root is where /proc, /sys and /boot are read; "" means "/". Tests
	// point it at a fake tree.
	Root string
	// Path is searched for runc and the containerd shim; "" means $PATH.
	Path string

	euid func() int // tests pretend not to be root
}

func (c *Config) setDefaults() {
	if c.ContainerdSocket == "" {
		c.ContainerdSocket = DefaultContainerdSocket
	}
	if c.Root == "" {
		c.Root = "/"
	}
	if c.Path == "" {
		c.Path = os.Getenv("PATH")
	}
	if c.euid == nil {
		c.euid = os.Geteuid
	}
}

// Run performs every check; none stops the others.
func Run(ctx context.Context, cfg Config) Report {
	cfg.setDefaults()
	var r Report
	r.Checks = append(r.Checks, checkKernel(cfg.Root))
	r.Checks = append(r.Checks, checkCgroups(cfg.Root)...)
	r.Checks = append(r.Checks, checkOverlay(cfg.Root))
	r.Checks = append(r.Checks, checkContainerd(ctx, cfg.ContainerdSocket))
	r.Checks = append(r.Checks, checkBinaries(cfg.Path)...)
	if cfg.DataDir != "" {
		r.Checks = append(r.Checks, checkDataDir(cfg.DataDir))
	}
	probe := probeNFT
	if cfg.Root != "/" {
		probe = nil // a fake tree: its files alone say what is there
	}
	r.Checks = append(r.Checks, checkNetModules(cfg.Root, probe)...)
	r.Checks = append(r.Checks, checkRoot(cfg.euid()), Check{
		Name: "iptables", Status: OK,
		Message: "not required: bramble writes nftables (table inet bramble), never iptables rules",
	})
	return r
}

// Failed reports whether any check failed.
func (r Report) Failed() bool {
	for _, c := range r.Checks {
		if c.Status == Fail {
			return true
		}
	}
	return false
}

// Find returns the check called name.
func (r Report) Find(name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// Print writes one line per check (continuation lines indented) and a
// summary, and reports whether any check failed: the command then exits
// non-zero.
func (r Report) Print(w io.Writer) (failed bool) {
	counts := map[Status]int{}
	for _, c := range r.Checks {
		counts[c.Status]++
		lines := strings.Split(strings.TrimRight(c.Message, "\n"), "\n")
		fmt.Fprintf(w, "%-6s %s: %s\n", "["+string(c.Status)+"]", c.Name, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "       %s\n", l)
		}
	}
	fmt.Fprintf(w, "%d ok, %d warnings, %d failed\n", counts[OK], counts[Warn], counts[Fail])
	return r.Failed()
}
