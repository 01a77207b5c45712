package runtime

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/containerd/containerd"

	"github.com/bramble-edge/bramble/imageregistry"
)

// Defaults for ContainerdConfig.
const (
	DefaultAddress     = "/run/containerd/containerd.sock"
	DefaultNamespace   = "bramble"
	DefaultSnapshotter = "overlayfs"
	DefaultLogMaxBytes = 10 << 20
	DefaultLogMaxFiles = 3
	DefaultImageFSPath = "/var/lib/containerd"
)

// ContainerdConfig configures a Containerd; zero values take the defaults.
type ContainerdConfig struct {
	// Address is containerd's socket.
	Address string
	// Namespace isolates this agent's images and containers; several
	// agents may share one containerd with different namespaces.
	Namespace   string
	Snapshotter string
	Logger      *slog.Logger
	// Registries holds mirrors, endpoints and credentials for pulls.
	Registries imageregistry.Config
	// LogDriver is the executable containerd's shim starts for each
	// container to write its log file; it must run RunLogDriver when
	// called as `LogDriver container-log CONFIG` (cmd/bramble does).
	// Default: this process's own executable.
	LogDriver string
	// LogMaxBytes is the size at which a log file is rotated;
	// LogMaxFiles counts the files kept per container, the live one
	// included.
	LogMaxBytes int64
	LogMaxFiles int
}

// Containerd is the Runtime backed by a containerd daemon.
type Containerd struct {
	client *containerd.Client
	cfg    ContainerdConfig
	log    *slog.Logger
	// consoles are the IO of containers started with stdin or a TTY
	// (console.go), by container id.
	consoles consoleSet
	// records are the kept records of running containers (records.go).
	records records
}

var _ Runtime = (*Containerd)(nil)

func (cfg *ContainerdConfig) setDefaults() error {
	if cfg.Address == "" {
		cfg.Address = DefaultAddress
	}
	if cfg.Namespace == "" {
		cfg.Namespace = DefaultNamespace
	}
	if cfg.Snapshotter == "" {
		cfg.Snapshotter = DefaultSnapshotter
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.LogMaxBytes == 0 {
		cfg.LogMaxBytes = DefaultLogMaxBytes
	}
	if cfg.LogMaxFiles == 0 {
		cfg.LogMaxFiles = DefaultLogMaxFiles
	}
	if cfg.LogDriver == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("containerd config: find own executable for the log driver: %w", err)
		}
		cfg.LogDriver = logDriverBeside(exe)
	}
	return cfg.validate()
}

// LogDriverBinary is the small log-driver-only executable installed beside
// bramble. Each running container has one log driver process; the small
// binary costs about a sixth of the memory of bramble itself, whose every
// package initialises before main runs.
const LogDriverBinary = "bramble-log"

// logDriverBeside is bramble-log next to exe when it is there and
// executable, else exe itself (which also answers `container-log`).
func logDriverBeside(exe string) string {
	small := filepath.Join(filepath.Dir(exe), LogDriverBinary)
	if st, err := os.Stat(small); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return small
	}
	return exe
}

func (cfg *ContainerdConfig) validate() error {
	switch {
	case cfg.LogMaxBytes < 4096:
		return fmt.Errorf("containerd config: logMaxBytes %d is below 4096", cfg.LogMaxBytes)
	case cfg.LogMaxFiles < 1:
		return fmt.Errorf("containerd config: logMaxFiles %d is below 1", cfg.LogMaxFiles)
	case !filepath.IsAbs(cfg.LogDriver):
		return fmt.Errorf("containerd config: logDriver %q is not absolute", cfg.LogDriver)
	}
	if err := cfg.Registries.Validate(); err != nil {
		return fmt.Errorf("containerd config: registries: %w", err)
	}
	return nil
}

// NewContainerd connects to containerd and checks that it answers; it
// takes back the IO of the containers with stdin or a TTY it finds running.
func NewContainerd(ctx context.Context, cfg ContainerdConfig) (*Containerd, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	client, err := containerd.New(cfg.Address, containerd.WithDefaultNamespace(cfg.Namespace))
	if err != nil {
		return nil, fmt.Errorf("connect to containerd at %s: %w", cfg.Address, err)
	}
	if _, err := client.Version(ctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("containerd at %s does not answer: %w", cfg.Address, err)
	}
	c := &Containerd{client: client, cfg: cfg, log: cfg.Logger}
	c.reattachConsoles(ctx)
	return c, nil
}

// Version reports the daemon's version, e.g. "1.6.20~ds1".
func (c *Containerd) Version(ctx context.Context) (string, error) {
	v, err := c.client.Version(ctx)
	if err != nil {
		return "", fmt.Errorf("containerd version: %w", err)
	}
	return v.Version, nil
}

// Close drops the connection. Containers keep running: their shims and log
// drivers belong to containerd, not to this process.
func (c *Containerd) Close() error {
	return c.client.Close()
}
