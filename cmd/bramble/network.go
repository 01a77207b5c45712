package main

import (
	"fmt"
	"net/netip"

	"github.com/spf13/pflag"

	"github.com/bramble-edge/bramble/agent"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/hpa"
	"github.com/bramble-edge/bramble/controllers/manager"
	"github.com/bramble-edge/bramble/controllers/nodeipam"
	"github.com/bramble-edge/bramble/controllers/podgc"
	"github.com/bramble-edge/bramble/server"
)

// addClusterNetworkFlags adds the server's pod addressing flags.
func addClusterNetworkFlags(f *pflag.FlagSet, cfg *server.Config) {
	f.StringVar(&cfg.ClusterCIDR, "cluster-cidr", nodeipam.DefaultClusterCIDR, "IPv4 network pod IPs come from; each node gets a range of it")
	f.IntVar(&cfg.NodeCIDRMaskSize, "node-cidr-mask-size", nodeipam.DefaultNodeMaskSize, "prefix length of each node's pod range within --cluster-cidr")
	f.StringSliceVar(&cfg.Disable, "disable", nil, "built-in components not to run (repeatable): servicelb (the LoadBalancer controller; leaves LoadBalancer Services to another one)")
}

// disabled checks --disable and says which components it names.
func disabled(list []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, name := range list {
		if name != "servicelb" {
			return nil, fmt.Errorf("--disable %q: unknown component (known: servicelb)", name)
		}
		out[name] = true
	}
	return out, nil
}

// addNodeNetworkFlags adds the pod networking flags of a node; on `bramble
// server` --network-backend is also the cluster's, told to every agent.
func addNodeNetworkFlags(f *pflag.FlagSet, cfg *agent.Config) {
	f.StringVar(&cfg.NetworkBackend, "network-backend", "", "pod networking: vxlan, host-gw or none (none: bring your own CNI config); an agent without it follows its server's, which defaults to vxlan")
	f.StringSliceVar(&cfg.CNIBinDirs, "cni-bin-dir", []string{agent.DefaultCNIBinDir}, "folders holding the CNI plugins (repeatable)")
	f.StringVar(&cfg.CNIBridge, "cni-bridge", agent.DefaultCNIBridge, "name of the pod bridge")
	_ = f.MarkHidden("cni-bridge") // tests run several agents on one machine
	f.BoolVar(&cfg.DisableOverlay, "disable-overlay", false, "no vxlan device, routes or nftables rules (tests running agents in the host's network namespace)")
	_ = f.MarkHidden("disable-overlay")
}

// controllersFor is the server's hook for its control loops, with the
// node IPAM flags checked before anything starts.
func controllersFor(cfg server.Config, backend string) (server.NewControllers, error) {
	ipam := nodeipam.Config{NodeMaskSize: cfg.NodeCIDRMaskSize, NetworkBackend: backend}
	if cfg.ClusterCIDR != "" {
		p, err := netip.ParsePrefix(cfg.ClusterCIDR)
		if err != nil {
			return nil, fmt.Errorf("--cluster-cidr %q: not a CIDR (like %s)", cfg.ClusterCIDR, nodeipam.DefaultClusterCIDR)
		}
		ipam.ClusterCIDR = p
	}
	if backend != "" {
		if err := nodeipam.ValidateBackend(backend); err != nil {
			return nil, err
		}
	}
	off, err := disabled(cfg.Disable)
	if err != nil {
		return nil, err
	}
	mc := manager.Config{NodeIPAM: ipam, DisableServiceLB: off["servicelb"], HPA: hpa.Config{SyncPeriod: cfg.HPASyncPeriod},
		PodGC: podgc.Config{Threshold: cfg.TerminatedPodGCThreshold}}
	return func(d controllers.Deps) (server.ControllerSet, error) {
		return manager.NewWithConfig(d, mc)
	}, nil
}
