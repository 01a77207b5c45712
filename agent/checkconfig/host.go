package checkconfig

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/containerd/containerd"
	"golang.org/x/sys/unix"
)

// checkContainerd connects to the socket, then asks containerd its version.
func checkContainerd(ctx context.Context, socket string) Check {
	c := Check{Name: "containerd", Status: Fail}
	const install = "install containerd (apt-get install containerd) and start it (systemctl enable --now containerd), or pass --containerd-socket"
	if _, err := os.Stat(socket); err != nil {
		c.Message = fmt.Sprintf("no socket at %s: %s", socket, install)
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		c.Message = fmt.Sprintf("cannot connect to %s: %v\nis containerd running? (systemctl status containerd)", socket, err)
		return c
	}
	conn.Close()
	client, err := containerd.New(socket, containerd.WithTimeout(2*time.Second))
	if err != nil {
		c.Message = fmt.Sprintf("%s accepts connections but does not answer as containerd: %v", socket, err)
		return c
	}
	defer client.Close()
	v, err := client.Version(ctx)
	if err != nil {
		c.Message = fmt.Sprintf("%s accepts connections but does not answer as containerd: %v", socket, err)
		return c
	}
	c.Status, c.Message = OK, fmt.Sprintf("containerd %s at %s", v.Version, socket)
	return c
}

// checkBinaries looks for what containerd runs containers with.
func checkBinaries(path string) []Check {
	var out []Check
	for _, bin := range []string{"runc", "containerd-shim-runc-v2"} {
		c := Check{Name: bin, Status: OK}
		if p := lookPath(path, bin); p != "" {
			c.Message = p
		} else {
			c.Status = Fail
			c.Message = fmt.Sprintf("not found in PATH: install it (apt-get install %s)", map[string]string{
				"runc": "runc", "containerd-shim-runc-v2": "containerd"}[bin])
		}
		out = append(out, c)
	}
	return out
}

// lookPath finds an executable regular file called name in the
// colon-separated dirs of path.
func lookPath(path, name string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// checkDataDir checks the data directory (or the parent it will be made
// in) is writable, and reports its free space.
func checkDataDir(dir string) Check {
	c := Check{Name: "data dir", Status: OK}
	probe, note := dir, ""
	for {
		_, err := os.Stat(probe)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrNotExist) || probe == filepath.Dir(probe) {
			c.Status, c.Message = Fail, fmt.Sprintf("%s: %v", dir, err)
			return c
		}
		probe, note = filepath.Dir(probe), " (will be created)"
	}
	if err := unix.Access(probe, unix.W_OK); err != nil {
		c.Status, c.Message = Fail, fmt.Sprintf("%s is not writable: %v; run as root or pass --data-dir", probe, err)
		return c
	}
	var st unix.Statfs_t
	if err := unix.Statfs(probe, &st); err != nil {
		c.Status, c.Message = Warn, fmt.Sprintf("%s%s: cannot measure its filesystem: %v", dir, note, err)
		return c
	}
	free, total := st.Bavail*uint64(st.Bsize), st.Blocks*uint64(st.Bsize)
	c.Message = fmt.Sprintf("%s%s: %d MiB free of %d MiB", dir, note, free>>20, total>>20)
	if total > 0 && free*10 < total {
		c.Status = Warn
		c.Message += "\nless than 10 % free: the node will report DiskPressure; free some space"
	}
	return c
}

func checkRoot(euid int) Check {
	if euid == 0 {
		return Check{Name: "root", Status: OK, Message: "running as root"}
	}
	return Check{Name: "root", Status: Warn, Message: strings.Join([]string{
		fmt.Sprintf("running as uid %d: some checks may be wrong", euid),
		"the agent must run as root (it creates cgroups and talks to containerd's socket)"}, "\n")}
}
