package agent

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/bramble-edge/bramble/agent/network/dns"
)

// Cluster DNS defaults (k3s's).
const (
	DefaultClusterDNS    = "10.43.0.10"
	DefaultClusterDomain = "cluster.local"
)

// The local store's resources the cluster DNS is built from. Services
// and EndpointSlices reach the store once the publisher sends them (the
// service proxy's data flow); until then the view holds this node's pods
// only.
const (
	storeServices       = "services"
	storeEndpointSlices = "endpointslices"
)

// clusterDNSRetry is how long a failed start (address, port) waits;
// clusterDNSPoll how often the store's revision is looked at.
const (
	clusterDNSRetry = time.Minute
	clusterDNSPoll  = time.Second
)

func (c *Config) clusterDNSDefaults() error {
	if c.ClusterDNS == "" {
		c.ClusterDNS = DefaultClusterDNS
	}
	if ip, err := netip.ParseAddr(c.ClusterDNS); err != nil || !ip.Is4() {
		return fmt.Errorf("--cluster-dns: got %q, want an IPv4 address such as %s", c.ClusterDNS, DefaultClusterDNS)
	}
	if c.ClusterDomain == "" {
		c.ClusterDomain = DefaultClusterDomain
	}
	if errs := validation.IsDNS1123Subdomain(c.ClusterDomain); len(errs) > 0 {
		return fmt.Errorf("--cluster-domain: got %q: %s", c.ClusterDomain, errs[0])
	}
	return nil
}

// clusterDNS runs the node's DNS server on the cluster DNS address and
// keeps its view in step with the local store, so names resolve while
// the server is unreachable.
type clusterDNS struct {
	addr   netip.Addr
	domain string
	file   string // --resolv-conf, "" for the default choice
	store  *Store
	log    *slog.Logger
	srv    *dns.Server
	rev    int64
}

// newClusterDNS returns nil when the cluster DNS is disabled or the agent
// does not run the pod network (backend none).
func newClusterDNS(cfg *Config, store *Store, podNetwork bool) *clusterDNS {
	if cfg.DisableClusterDNS || !podNetwork {
		return nil
	}
	return &clusterDNS{addr: netip.MustParseAddr(cfg.ClusterDNS), domain: cfg.ClusterDomain,
		file: cfg.ResolvConf, store: store, log: cfg.Logger, rev: -1}
}

// run starts the server (again every clusterDNSRetry while that fails),
// then rebuilds the view whenever the store's revision moved, until ctx
// ends.
func (c *clusterDNS) run(ctx context.Context) {
	for c.srv == nil {
		if err := c.start(ctx); err != nil {
			c.log.Warn("cluster DNS not serving; retrying", "addr", c.addr, "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(clusterDNSRetry):
			}
		}
	}
	defer c.srv.Stop()
	tick := time.NewTicker(clusterDNSPoll)
	defer tick.Stop()
	for {
		c.refresh()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
