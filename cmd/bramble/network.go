//go:build !agentonly

package main

import (
	"fmt"
	"net/netip"

	"github.com/spf13/pflag"

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
