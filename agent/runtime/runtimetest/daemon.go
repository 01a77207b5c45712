// Package runtimetest starts a private containerd for tests and builds small
// OCI images from the host's busybox, so the agent's tests run against the
// real daemon without a system containerd and without a registry.
package runtimetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/containerd"
)

// Daemon is a containerd process owned by one test binary, with its own root,
// state directory and socket under Dir. The CRI plugin is disabled.
//
// The shims' runc state (/run/containerd/runc/<namespace>/<id>) is shared
// by every containerd on the host, so test binaries running at once must
// not reuse a namespace and container ID pair: give each test its own
// namespace.
type Daemon struct {
	Dir     string
	Address string
	Root    string
	cmd     *exec.Cmd
	logPath string
	exited  chan error
}

// RequireBinaries returns an error naming every binary the daemon needs
// that is not on PATH (Debian: apt-get install containerd runc).
func RequireBinaries() error {
	var missing []string
	for _, b := range []string{"containerd", "containerd-shim-runc-v2", "runc", "ctr"} {
		if _, err := exec.LookPath(b); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the runtime tests need %s on PATH (Debian: apt-get install containerd runc)", strings.Join(missing, ", "))
	}
	return nil
}

// StartContainerd starts a private containerd under a new directory in
// parent (os.TempDir() when empty) and waits until it serves.
func StartContainerd(ctx context.Context, parent string) (*Daemon, error) {
	if err := RequireBinaries(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(parent, "ctrd-")
	if err != nil {
		return nil, fmt.Errorf("make containerd dir: %w", err)
	}
	d := &Daemon{
		Dir: dir, Address: filepath.Join(dir, "containerd.sock"),
		Root: filepath.Join(dir, "root"), logPath: filepath.Join(dir, "containerd.log"),
		exited: make(chan error, 1),
	}
	if err := d.start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := d.waitServing(ctx); err != nil {
		d.Stop()
		return nil, err
	}
	return d, nil
}

func (d *Daemon) config() string {
	return fmt.Sprintf(`version = 2
root = %q
state = %q
oom_score = 0
disabled_plugins = ["io.containerd.grpc.v1.cri"]

[grpc]
  address = %q

[ttrpc]
  address = %q

[debug]
  address = %q
  level = "info"

[metrics]
  address = ""
`, d.Root, filepath.Join(d.Dir, "state"), d.Address, d.Address+".ttrpc", filepath.Join(d.Dir, "debug.sock"))
}

func (d *Daemon) start() error {
	cfg := filepath.Join(d.Dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(d.config()), 0o600); err != nil {
		return fmt.Errorf("write containerd config: %w", err)
	}
	logf, err := os.Create(d.logPath)
	if err != nil {
		return fmt.Errorf("create containerd log: %w", err)
	}
	defer logf.Close()
	d.cmd = exec.Command("containerd", "--config", cfg)
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	// Its own process group: a ^C to the test does not reach the daemon
	// before the suite cleans up its containers.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := d.cmd.Start(); err != nil {
		return fmt.Errorf("start containerd: %w", err)
	}
	go func() { d.exited <- d.cmd.Wait() }()
	return nil
}

func (d *Daemon) waitServing(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		select {
		case err := <-d.exited:
			d.exited <- err
			return fmt.Errorf("containerd exited at start (%v): %s", err, d.LogTail())
		case <-ctx.Done():
			return fmt.Errorf("containerd at %s not serving after 20s: %s", d.Address, d.LogTail())
		case <-time.After(50 * time.Millisecond):
		}
		if _, err := os.Stat(d.Address); err != nil {
			continue
		}
		c, err := containerd.New(d.Address, containerd.WithTimeout(time.Second))
		if err != nil {
			continue
		}
		ok, err := c.IsServing(ctx)
		c.Close()
		if err == nil && ok {
			return nil
		}
	}
}

// LogTail returns the last lines of the daemon's own log, for failures.
func (d *Daemon) LogTail() string {
	b, err := os.ReadFile(d.logPath)
	if err != nil {
		return "(no containerd log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}

// Stop removes every task and container the daemon still has (their shims
// would otherwise outlive it), stops the daemon and deletes its directory.
func (d *Daemon) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := []error{d.removeAll(ctx)}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(10 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.exited
	}
	errs = append(errs, unmountUnder(d.Dir), os.RemoveAll(d.Dir))
	return errors.Join(errs...)
}
