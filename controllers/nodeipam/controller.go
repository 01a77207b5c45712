// Package nodeipam gives every Node its pod range: spec.podCIDR and
// spec.podCIDRs, a subnet of --cluster-cidr of --node-cidr-mask-size bits,
// written through the registry when the Node first appears. A range never
// changes while its Node exists (pods hold addresses from it); it is
// rebuilt from the stored Nodes at start, so server restarts keep every
// node's range, and freed when the Node is deleted. When the cluster CIDR
// has no range left the Node gets a Warning Event (CIDRNotAvailable) and
// the condition NetworkUnavailable=True (reason NoCIDRAvailable); it gets a
// range as soon as another Node's is freed.
//
// The controller also stamps the server's --network-backend on each Node
// (annotation NetworkBackendAnnotation), which is how agents learn it.
package nodeipam

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/controllers"
)

// Defaults of the server flags, k3s's.
const (
	DefaultClusterCIDR    = "10.42.0.0/16"
	DefaultNodeMaskSize   = 24
	DefaultNetworkBackend = "vxlan"
)

// NetworkBackendAnnotation carries the server's --network-backend to agents.
const NetworkBackendAnnotation = "bramble.io/network-backend"

// ClusterCIDRAnnotation carries the server's --cluster-cidr to agents: the
// overlay masquerades what leaves it and leaves pod-to-pod traffic alone.
const ClusterCIDRAnnotation = "bramble.io/cluster-cidr"

// Component names the controller in events.
const Component = "node-ipam-controller"

// Reasons of the Event and the condition written when the range is full.
const (
	ReasonCIDRNotAvailable = "CIDRNotAvailable"
	ReasonNoCIDRAvailable  = "NoCIDRAvailable"
)

var nodesRes = controllers.MustResource("", "nodes")

// Config is the server's pod network flags; zero values take the defaults.
type Config struct {
	ClusterCIDR    netip.Prefix // --cluster-cidr
	NodeMaskSize   int          // --node-cidr-mask-size
	NetworkBackend string       // --network-backend: vxlan, host-gw or none
}

// Controller allocates node pod ranges.
type Controller struct {
	client  controllers.Client
	cache   *controllers.Cache
	log     *slog.Logger
	backend string
	cidr    string // the cluster CIDR, stamped with the backend
	nodeInf *controllers.Informer
	queue   *controllers.Queue
	events  *controllers.Recorder

	mu     sync.Mutex
	alloc  *allocator
	byNode map[string]netip.Prefix // the range each known Node holds
}

// New checks cfg and registers the controller's handlers on d.Cache.
func New(d controllers.Deps, cfg Config) (*Controller, error) {
	if !cfg.ClusterCIDR.IsValid() {
		cfg.ClusterCIDR = netip.MustParsePrefix(DefaultClusterCIDR)
	}
	if cfg.NodeMaskSize == 0 {
		cfg.NodeMaskSize = DefaultNodeMaskSize
	}
	if cfg.NetworkBackend == "" {
		cfg.NetworkBackend = DefaultNetworkBackend
	}
	if err := ValidateBackend(cfg.NetworkBackend); err != nil {
		return nil, err
	}
	alloc, err := newAllocator(cfg.ClusterCIDR, cfg.NodeMaskSize)
	if err != nil {
		return nil, err
	}
	log := d.Logger("nodeipam")
	c := &Controller{client: d.Client, cache: d.Cache, log: log, backend: cfg.NetworkBackend,
		cidr:    cfg.ClusterCIDR.String(),
		nodeInf: d.Cache.Informer(nodesRes),
		queue:   controllers.NewQueue(10*time.Millisecond, time.Minute),
		events:  controllers.NewRecorder(d.Client, Component, log),
		alloc:   alloc, byNode: map[string]netip.Prefix{}}
	c.nodeInf.AddHandler(controllers.EnqueueHandler(c.queue))
	return c, nil
}

// ValidateBackend checks a --network-backend value.
func ValidateBackend(b string) error {
	switch b {
	case "vxlan", "host-gw", "none":
		return nil
	}
	return fmt.Errorf("--network-backend %q: want vxlan, host-gw or none", b)
}

// Run waits for the cache, takes note of the ranges stored Nodes hold,
// then allocates until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !c.cache.WaitForSync(ctx) {
		return
	}
	c.rebuild()
	controllers.Run(ctx, c.cache, c.events, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

// rebuild marks the ranges of the stored Nodes taken, before any Node
// without one is given one.
func (c *Controller) rebuild() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range c.nodeInf.List("", nil) {
		c.noteLocked(o.(*corev1.Node))
	}
	c.log.Info("node ranges rebuilt", "nodes", len(c.byNode))
}

// noteLocked records the range a stored Node holds; a range outside the
// cluster CIDR (the flag changed) or held twice is kept on the Node, as its
// pods use it, but only reported.
func (c *Controller) noteLocked(n *corev1.Node) {
	if n.Spec.PodCIDR == "" {
		return
	}
	if _, ok := c.byNode[n.Name]; ok {
		return
	}
	p, err := netip.ParsePrefix(n.Spec.PodCIDR)
	if err != nil || !c.alloc.occupy(p) {
		c.log.Warn("node's podCIDR is not a free range of the cluster CIDR; left as it is",
			"node", n.Name, "podCIDR", n.Spec.PodCIDR)
		return
	}
	c.byNode[n.Name] = p
}
