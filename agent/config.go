package agent

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Defaults of the agent's flags.
const (
	DefaultDataDir           = "/var/lib/bramble"
	DefaultConfigFile        = "/etc/bramble/config.yaml"
	DefaultNamespace         = "bramble"
	DefaultRuntimeEndpoint   = "/run/containerd/containerd.sock"
	DefaultHeartbeatInterval = 10 * time.Second
	DefaultRegistriesFile    = "/etc/bramble/registries.yaml"
	DefaultContainerdRoot    = "/var/lib/containerd"
)

// Config is what `bramble agent` needs; zero values of the optional fields
// take the defaults above.
type Config struct {
	// ServerURL (--server, BRAMBLE_URL) and Token (--token, BRAMBLE_TOKEN)
	// are needed only for the first join; later starts use the saved
	// credentials.
	ServerURL string
	Token     string
	// DataDir holds the agent's state in DataDir/agent.
	DataDir string
	// NodeName defaults to the hostname, lower-cased.
	NodeName string
	NodeIP   string
	// NodeLabels, NodeTaints and SystemReserved are the raw flag values
	// (nodeinfo.ParseLabels, ParseTaints, ParseReserved read them).
	NodeLabels     []string
	NodeTaints     []string
	SystemReserved string
	// ContainerdNamespace and RuntimeEndpoint say which containerd to use.
	ContainerdNamespace string
	RuntimeEndpoint     string
	HeartbeatInterval   time.Duration
	// ImagePoll is how often the images folder and the static pod
	// manifests are looked at (default 3s).
	ImagePoll time.Duration
	// RegistriesFile (--registries) holds mirrors, plain-HTTP endpoints
	// and credentials in the shape of k3s's registries.yaml; a missing
	// file means none.
	RegistriesFile string
	// ContainerdRoot (--containerd-root) is containerd's root folder: the
	// filesystem image garbage collection watches.
	ContainerdRoot string
	ImageGC        ImageGC
	Logger         *slog.Logger
}

func (c *Config) setDefaults() error {
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir
	}
	if c.ContainerdNamespace == "" {
		c.ContainerdNamespace = DefaultNamespace
	}
	if c.RuntimeEndpoint == "" {
		c.RuntimeEndpoint = DefaultRuntimeEndpoint
	}
	c.RuntimeEndpoint = strings.TrimPrefix(c.RuntimeEndpoint, "unix://")
	if c.HeartbeatInterval == 0 {
		c.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if c.HeartbeatInterval < time.Second {
		return fmt.Errorf("--heartbeat-interval: got %s, want at least 1s", c.HeartbeatInterval)
	}
	if c.ImagePoll == 0 {
		c.ImagePoll = 3 * time.Second
	}
	if err := c.imageDefaults(); err != nil {
		return err
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.ServerURL != "" {
		u, err := url.Parse(c.ServerURL)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("--server: got %q, want https://HOST:PORT", c.ServerURL)
		}
	}
	return nil
}

// AgentDir is where the agent keeps its credentials and state.
func (c *Config) AgentDir() string { return filepath.Join(c.DataDir, "agent") }

// ReadConfigFile reads a config file of flag names to values, as k3s's
// config.yaml: `node-label: [a=b, c=d]`, `server: https://...`. A missing
// file is not an error when optional is set (the default path).
func ReadConfigFile(path string, optional bool) (map[string][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if optional && os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("config file: %w", err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	out := make(map[string][]string, len(raw))
	for k, v := range raw {
		vals, err := configValues(v)
		if err != nil {
			return nil, fmt.Errorf("config file %s: %s: %w", path, k, err)
		}
		out[k] = vals
	}
	return out, nil
}

func configValues(v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		return []string{v}, nil
	case bool, float64, int64, int:
		return []string{fmt.Sprint(v)}, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, err := configValues(e)
			if err != nil || len(s) != 1 {
				return nil, fmt.Errorf("list entries must be strings, numbers or booleans")
			}
			out = append(out, s[0])
		}
		return out, nil
	}
	return nil, fmt.Errorf("got %T, want a string, number, boolean or list", v)
}

// SortedKeys returns a config file's keys in order, for stable errors.
func SortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (c *Config) imageDefaults() error {
	if c.RegistriesFile == "" {
		c.RegistriesFile = DefaultRegistriesFile
	}
	if c.ContainerdRoot == "" {
		c.ContainerdRoot = DefaultContainerdRoot
	}
	g := &c.ImageGC
	if g.High == 0 && g.Low == 0 {
		g.High, g.Low = 85, 80
	}
	if g.Interval == 0 {
		g.Interval = 5 * time.Minute
	}
	g.Path = c.ContainerdRoot
	return g.Validate()
}
