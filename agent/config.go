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

	yaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/bramble-edge/bramble/agent/pods"
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
	DefaultPodLogDir         = pods.DefaultPodLogDir
	DefaultContainerLogDir   = pods.DefaultContainerLogDir
	DefaultCNIBinDir         = "/usr/lib/cni"
	DefaultCNIBridge         = "cni0"
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
	// NodeExternalIP (--node-external-ip) is reported as the Node's
	// ExternalIP.
	NodeExternalIP string
	// NetworkBackend (--network-backend) is vxlan, host-gw or none: how
	// pods reach other nodes' pods (agent/network/overlay); empty follows
	// the server's (the Node's bramble.io/network-backend, vxlan when
	// unset). With none the agent writes no CNI config and uses the
	// user's, and programs no routes.
	NetworkBackend string
	// ClusterCIDR is the pod network of the whole cluster (default
	// 10.42.0.0/16): traffic from it to anywhere else is masqueraded.
	ClusterCIDR string
	// ClusterDNS (--cluster-dns, default 10.43.0.10) is the address the
	// node's cluster DNS listens on and pods are told of; ClusterDomain
	// (--cluster-domain) its zone; ResolvConf (--resolv-conf) the file of
	// upstream resolvers (default: /etc/resolv.conf, or systemd-resolved's
	// real one when that names only its stub). DisableClusterDNS
	// (--disable-cluster-dns) runs none (agent/clusterdns.go).
	ClusterDNS        string
	ClusterDomain     string
	ResolvConf        string
	DisableClusterDNS bool
	// NodeLabels, NodeTaints and SystemReserved are the raw flag values
	// (nodeinfo.ParseLabels, ParseTaints, ParseReserved read them).
	NodeLabels     []string
	NodeTaints     []string
	SystemReserved string
	// EvictionHard is --eviction-hard in the kubelet's syntax
	// (nodeinfo.ParseEvictionHard): the pressure conditions' thresholds
	// and the eviction manager's (agent/eviction).
	EvictionHard string
	// ContainerdNamespace and RuntimeEndpoint say which containerd to use.
	ContainerdNamespace string
	RuntimeEndpoint     string
	HeartbeatInterval   time.Duration
	// CABundleInterval is how often the CA bundle is fetched (0:
	// DefaultCABundleInterval; shorter for tests of rotate-ca).
	CABundleInterval time.Duration
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
	// PodLogDir (--pod-log-dir) and ContainerLogDir (--container-log-dir)
	// are where container logs go, as the kubelet lays them out (defaults
	// /var/log/pods and /var/log/containers).
	PodLogDir string
	// DisableExec (--disable-exec) refuses exec, attach and port-forward.
	DisableExec     bool
	ContainerLogDir string
	// LocalStoragePath (--default-local-storage-path) holds the local-path
	// volumes' directories; default <DataDir>/storage.
	LocalStoragePath string
	ImageGC          ImageGC
	// CNIBinDirs (--cni-bin-dir) hold the CNI plugins; CNIBridge
	// (hidden --cni-bridge) names the pod bridge.
	CNIBinDirs []string
	CNIBridge  string
	// DisableOverlay (hidden --disable-overlay) runs pod sandboxes without
	// the overlay: no vxlan device, routes or nftables rules. For tests
	// that run several agents in the host's own network namespace, where
	// those belong to the host.
	DisableOverlay bool
	Logger         *slog.Logger
	// OnRunning, when set, is called once the agent has its node identity
	// (joined now or on an earlier start) and runs its pods from the local
	// store; `bramble agent` tells systemd it is ready there.
	OnRunning func(node string)
}

func (c *Config) setDefaults() error {
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir
	}
	// runc passes the namespaces a container joins to its set-up code as
	// one comma-separated list of paths: a pod's pinned namespaces under a
	// folder with a comma would fail every start ("invalid namespace path").
	if strings.ContainsRune(c.DataDir, ',') {
		return fmt.Errorf("--data-dir %q: has a comma, which runc cannot take in the paths of the pods' namespaces kept beneath it; choose a folder without one", c.DataDir)
	}
	if c.LocalStoragePath == "" {
		c.LocalStoragePath = filepath.Join(c.DataDir, "storage")
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
	if err := c.networkDefaults(); err != nil {
		return err
	}
	if len(c.CNIBinDirs) == 0 {
		c.CNIBinDirs = []string{DefaultCNIBinDir}
	}
	if c.CNIBridge == "" {
		c.CNIBridge = DefaultCNIBridge
	}
	if err := c.clusterDNSDefaults(); err != nil {
		return err
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
	if c.PodLogDir == "" {
		c.PodLogDir = DefaultPodLogDir
	}
	if c.ContainerLogDir == "" {
		c.ContainerLogDir = DefaultContainerLogDir
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
// config.yaml: `node-label: [a=b, c=d]`, `server: https://...`. Values are
// taken as written, so `write-kubeconfig-mode: 0644` stays octal and
// `image-gc-interval: 1000000` is not turned into 1e+06. A missing file is
// not an error when optional is set (the default path).
func ReadConfigFile(path string, optional bool) (map[string][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if optional && os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("config file: %w", err)
	}
	out, err := parseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	return out, nil
}

// parseConfig reads the top-level mapping of a config file, keeping each
// scalar's text.
func parseConfig(data []byte) (map[string][]string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	if doc.Kind == 0 { // empty file
		return out, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("want a mapping of flag names to values")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		vals, err := configValues(val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key.Value, err)
		}
		out[key.Value] = vals
	}
	return out, nil
}

func configValues(n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return []string{n.Value}, nil
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("list entries must be strings, numbers or booleans")
			}
			out = append(out, e.Value)
		}
		return out, nil
	case yaml.AliasNode:
		return configValues(n.Alias)
	}
	return nil, fmt.Errorf("got a mapping, want a string, number, boolean or list")
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
