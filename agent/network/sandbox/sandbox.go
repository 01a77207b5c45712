// Package sandbox gives each pod of the node its own network: a network
// namespace and a UTS namespace (hostname), pinned as files under the
// agent's run folder so they outlive the agent, attached through libcni to
// Debian's CNI plugins (bridge with host-local addresses from the node's
// pod range, loopback, portmap for hostPorts, bandwidth for the bandwidth
// annotations), and the pod's /etc/hosts and /etc/hostname. Containers
// join the namespaces by path (agent/runtime). Every state it keeps lives
// under the agent's data folder, so two agents on one machine never share
// it; a record per pod lets a restarted agent find its sandboxes, tear down
// those of pods that are gone and bring back, with the same address, those
// a reboot took away.
package sandbox

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/invoke"
	"github.com/containernetworking/cni/pkg/version"
)

// ErrNoConfig says the CNI config folder holds no network config (yet).
var ErrNoConfig = errors.New("no CNI network config")

// Config says where the sandboxes live; zero values take defaults.
type Config struct {
	// AgentDir is <data-dir>/agent; everything is kept under it:
	// etc/cni/net.d (the CNI config), run/netns and run/utsns (pinned
	// namespaces), network/ (pod records, host-local's state, libcni's cache).
	AgentDir string
	// BinDirs hold the CNI plugins (default /usr/lib/cni).
	BinDirs []string
	// Bridge names the pod bridge (default cni0).
	Bridge string
	// MTU of the pod interfaces; 0 leaves the plugin's default.
	MTU int
	// OwnConfig false (--network-backend none) means bramble writes no
	// CNI config and uses the first one a user put in the config folder.
	OwnConfig bool
	// ClusterDomain names pods' FQDNs in /etc/hosts (cluster.local).
	ClusterDomain string
	// ResolvConf, when set, gives a pod's /etc/resolv.conf (the cluster
	// DNS's, by the pod's dnsPolicy); nil leaves pods the host's.
	ResolvConf func(pod *corev1.Pod) []byte
	Logger     *slog.Logger
}

func (c *Config) setDefaults() error {
	if c.AgentDir == "" {
		return errors.New("sandbox config: AgentDir is empty")
	}
	if len(c.BinDirs) == 0 {
		c.BinDirs = []string{"/usr/lib/cni"}
	}
	if c.Bridge == "" {
		c.Bridge = "cni0"
	}
	if c.ClusterDomain == "" {
		c.ClusterDomain = "cluster.local"
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// ConfDir is where the CNI network config is read from.
func (c *Config) ConfDir() string { return filepath.Join(c.AgentDir, "etc", "cni", "net.d") }

func (c *Config) runDir(kind nsKind) string { return filepath.Join(c.AgentDir, "run", kind.dir) }
func (c *Config) recordsDir() string        { return filepath.Join(c.AgentDir, "network", "sandboxes") }

// IPAMDir is host-local's state folder (one file per address held).
func (c *Config) IPAMDir() string  { return filepath.Join(c.AgentDir, "network", "ipam") }
func (c *Config) cacheDir() string { return filepath.Join(c.AgentDir, "network", "cni-cache") }

// Manager makes and removes the node's pod sandboxes.
type Manager struct {
	cfg  Config
	cni  *libcni.CNIConfig
	log  *slog.Logger
	lo   *libcni.NetworkConfigList
	mu   sync.Mutex
	pods map[string]*PodNetwork // by pod UID: every pod set up, host network too
	// onChange is called when pods changes (SetOnChange).
	onChange func()
	cidr     netip.Prefix
	// own: bramble writes the config (not --network-backend none);
	// configured: Configure ran.
	own, configured bool
	// locks serialise the work on one pod.
	locks sync.Map // uid -> *sync.Mutex
}

// New checks cfg; nothing on the host changes until SetPodCIDR or Setup.
func New(cfg Config) (*Manager, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	return &Manager{cfg: cfg, log: cfg.Logger, lo: loopbackList(), pods: map[string]*PodNetwork{}, own: cfg.OwnConfig,
		cni: libcni.NewCNIConfigWithCacheDir(cfg.BinDirs, cfg.cacheDir(), pluginExec())}, nil
}

// pluginExec runs the plugins. libcni makes this default lazily, without
// a lock, when given none: a data race once pods are set up in parallel.
func pluginExec() invoke.Exec {
	return &invoke.DefaultExec{RawExec: &invoke.RawExec{Stderr: os.Stderr}, PluginDecoder: version.PluginDecoder{}}
}

// SetPodCIDR is Configure(cidr, Config.OwnConfig).
func (m *Manager) SetPodCIDR(cidr netip.Prefix) error { return m.Configure(cidr, m.cfg.OwnConfig) }

// Configure sets the node's pod range and whether bramble writes the CNI
// config for it (own) or uses the user's (--network-backend none, where
// the range may be invalid). Pods can be set up from then on.
func (m *Manager) Configure(cidr netip.Prefix, own bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if own {
		data, err := bridgeConf(m.cfg.Bridge, cidr, m.cfg.IPAMDir(), m.cfg.MTU)
		if err != nil {
			return err
		}
		if err := writeConf(m.cfg.ConfDir(), ConfFileName, data); err != nil {
			return fmt.Errorf("write CNI config: %w", err)
		}
	} else if err := os.Remove(filepath.Join(m.cfg.ConfDir(), ConfFileName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove bramble's CNI config (backend none): %w", err)
	}
	m.cidr, m.own, m.configured = cidr, own, true
	return nil
}

// SetMTU sets the MTU of pod interfaces the next Configure writes (0:
// the bridge plugin's default).
func (m *Manager) SetMTU(mtu int) {
	m.mu.Lock()
	m.cfg.MTU = mtu
	m.mu.Unlock()
}

// ready reports whether pods can be set up: Configure ran, or the user
// brings the config from the start.
func (m *Manager) ready() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.configured || !m.cfg.OwnConfig
}

// PodCIDR is the range given to SetPodCIDR; invalid until then.
func (m *Manager) PodCIDR() netip.Prefix {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cidr
}

func (m *Manager) lock(uid string) func() {
	v, _ := m.locks.LoadOrStore(uid, &sync.Mutex{})
	mu := v.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// hostSettings are the kernel settings pod networking needs: forwarding
// between the bridge and the uplink, and bridged traffic through the
// netfilter hooks (NetworkPolicy sees pod-to-pod traffic on one node).
var hostSettings = []string{
	"/proc/sys/net/ipv4/ip_forward",
	"/proc/sys/net/bridge/bridge-nf-call-iptables",
}

// PrepareHost loads br_netfilter when its settings are missing and turns
// on forwarding and bridge netfilter calls.
func PrepareHost() error {
	if _, err := os.Stat("/proc/sys/net/bridge"); err != nil {
		if out, err := exec.Command("modprobe", "br_netfilter").CombinedOutput(); err != nil {
			return fmt.Errorf("load kernel module br_netfilter: %w: %s", err, out)
		}
	}
	for _, p := range hostSettings {
		if err := os.WriteFile(p, []byte("1\n"), 0o644); err != nil {
			return fmt.Errorf("set %s: %w", p, err)
		}
	}
	return nil
}
