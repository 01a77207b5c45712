package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/network/dns"
	"github.com/bramble-edge/bramble/agent/network/sandbox"
	"github.com/bramble-edge/bramble/mqtt"
)

// networkBackendAnnotation is where the server's --network-backend
// reaches agents (controllers/nodeipam writes it on every Node).
const networkBackendAnnotation = mqtt.AnnotationNetworkBackend

// prepareHost turns on the kernel settings pod networking needs (tests
// of this package replace it: they must not change the host's).
var prepareHost = sandbox.PrepareHost

// nodeNet is what the agent knows of its Node's networking, kept in
// <data-dir>/agent/network/node.json so pods get their network after a
// start (or a reboot) without the server.
type nodeNet struct {
	PodCIDR string `json:"podCIDR"`
	Backend string `json:"backend,omitempty"`
}

// nodeNetwork is the agent's side of pod networking: the sandboxes and
// the Node's pod range they are cut from.
type nodeNetwork struct {
	sb   *sandbox.Manager
	file string
	flag string // --network-backend; "" follows the server
	log  *slog.Logger

	mu      sync.Mutex
	applied *nodeNet
	host    bool // PrepareHost ran
}

func newNodeNetwork(cfg *Config) (*nodeNetwork, error) {
	switch cfg.NetworkBackend {
	case "", "vxlan", "host-gw", "none":
	default:
		return nil, fmt.Errorf("--network-backend %q: want vxlan, host-gw or none", cfg.NetworkBackend)
	}
	sb, err := sandbox.New(sandbox.Config{AgentDir: cfg.AgentDir(), BinDirs: cfg.CNIBinDirs, Bridge: cfg.CNIBridge,
		OwnConfig: true, ClusterDomain: cfg.ClusterDomain, ResolvConf: podResolvConf(cfg),
		Logger: cfg.Logger.With("component", "sandbox")})
	if err != nil {
		return nil, err
	}
	n := &nodeNetwork{sb: sb, file: filepath.Join(cfg.AgentDir(), "network", "node.json"), flag: cfg.NetworkBackend,
		log: cfg.Logger.With("component", "network")}
	if data, err := os.ReadFile(n.file); err == nil {
		var saved nodeNet
		if err := json.Unmarshal(data, &saved); err != nil {
			return nil, fmt.Errorf("%s: %w", n.file, err)
		}
		if err := n.apply(saved); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	} else if n.flag == "none" {
		if err := n.apply(nodeNet{}); err != nil { // the user's config needs no range
			return nil, err
		}
	}
	return n, nil
}

// backend is the one in force: the flag's, else the server's, else vxlan.
func (n *nodeNetwork) backend(nn nodeNet) string {
	switch {
	case n.flag != "":
		return n.flag
	case nn.Backend != "":
		return nn.Backend
	}
	return "vxlan"
}

// apply configures the sandboxes for nn (once it has a pod range, or at
// once with backend none) and saves it.
func (n *nodeNetwork) apply(nn nodeNet) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.applied != nil && *n.applied == nn {
		return nil
	}
	own := n.backend(nn) != "none"
	var cidr netip.Prefix
	if nn.PodCIDR != "" {
		p, err := netip.ParsePrefix(nn.PodCIDR)
		if err != nil {
			return fmt.Errorf("node spec.podCIDR %q: %w", nn.PodCIDR, err)
		}
		cidr = p
	}
	if own && !cidr.IsValid() {
		return nil // the server has not given one yet
	}
	if !n.host {
		if err := prepareHost(); err != nil {
			n.log.Warn("host settings for pod networking", "err", err)
		}
		n.host = true
	}
	n.sb.SetMTU(podMTU(n.backend(nn)))
	if err := n.sb.Configure(cidr, own); err != nil {
		return err
	}
	n.applied = &nn
	n.log.Info("pod network configured", "podCIDR", nn.PodCIDR, "backend", n.backend(nn))
	data, _ := json.Marshal(nn)
	if err := os.MkdirAll(filepath.Dir(n.file), 0o700); err != nil {
		return err
	}
	return writeFileAtomic(n.file, data, 0o600)
}

// follow reads the agent's Node from the server (with the node
// certificate) every 2 s until it has a pod range, then every minute, and
// applies what it finds, until ctx ends.
func (n *nodeNetwork) follow(ctx context.Context, client *http.Client, server, node string) {
	for {
		wait := 2 * time.Second
		nn, err := fetchNodeNet(ctx, client, server, node)
		if err == nil {
			err = n.apply(nn)
		}
		if err != nil && ctx.Err() == nil {
			n.log.Debug("read node's pod range", "node", node, "err", err)
		}
		n.mu.Lock()
		if n.applied != nil {
			wait = time.Minute
		}
		n.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

func fetchNodeNet(ctx context.Context, client *http.Client, server, node string) (nodeNet, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/api/v1/nodes/"+node, nil)
	if err != nil {
		return nodeNet{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nodeNet{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nodeNet{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return nodeNet{}, fmt.Errorf("GET node %s: %s", node, resp.Status)
	}
	return decodeNodeNet(body)
}

// decodeNodeNet reads the pod range and backend of a Node as the API
// serves it.
func decodeNodeNet(body []byte) (nodeNet, error) {
	var node corev1.Node
	if err := json.Unmarshal(body, &node); err != nil {
		return nodeNet{}, fmt.Errorf("decode node: %w", err)
	}
	nn := nodeNet{PodCIDR: node.Spec.PodCIDR, Backend: node.Annotations[networkBackendAnnotation]}
	if nn.PodCIDR != "" {
		if _, err := netip.ParsePrefix(nn.PodCIDR); err != nil {
			return nodeNet{}, fmt.Errorf("node spec.podCIDR %q: %w", nn.PodCIDR, err)
		}
	}
	return nn, nil
}

// podResolvConf gives a pod's /etc/resolv.conf as the kubelet writes it for
// its dnsPolicy: the node's cluster DNS (which runs with the overlay, when
// not disabled) first for ClusterFirst, else the node's own resolvers
// (--resolv-conf, or the host's choice, read at each pod's set-up).
func podResolvConf(cfg *Config) func(*corev1.Pod) []byte {
	var cluster []string
	if !cfg.DisableClusterDNS && !cfg.DisableOverlay && cfg.NetworkBackend != "none" {
		cluster = []string{cfg.ClusterDNS}
	}
	return func(pod *corev1.Pod) []byte {
		host, err := dns.ReadHostConfig(dns.ChooseResolvConf(cfg.ResolvConf, dns.EtcResolvConf, dns.SystemdResolvConf))
		if err != nil {
			cfg.Logger.Warn("pod resolv.conf without the node's resolvers", "pod", pod.Namespace+"/"+pod.Name, "err", err)
		}
		return []byte(dns.ResolvConf(pod, cluster, cfg.ClusterDomain, host))
	}
}
