package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/network/nft"
	"github.com/bramble-edge/bramble/agent/network/overlay"
	"github.com/bramble-edge/bramble/mqtt"
)

// run reconciles at once, then on every change and every networkResync,
// until ctx ends. Failures are logged and retried on the next round.
func (n *network) run(ctx context.Context) {
	tick := time.NewTicker(networkResync)
	defer tick.Stop()
	for {
		if err := n.sync(); err != nil {
			n.log.Warn("pod network not in step with the Nodes; retrying", "node", n.node, "err", err)
		}
		if err := n.syncServices(); err != nil {
			n.log.Warn("service proxy not in step with the Services; retrying", "node", n.node, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-n.kick:
		case <-tick.C:
		}
	}
}

// sync programs routes for the Nodes the store holds. Until this node's
// own Node has a podCIDR (node IPAM gives it one) there is nothing to do.
func (n *network) sync() error {
	remotes, own, backend := n.storedRemotes()
	if own == nil || backend == overlay.BackendNone {
		return nil
	}
	n.own = own
	if n.ov == nil {
		ov, err := overlay.New(overlay.Config{Backend: backend, NodeIP: n.nodeIP})
		if err != nil {
			return err
		}
		n.ov = ov
	}
	if _, err := n.ov.Setup(n.node, own); err != nil {
		return err
	}
	return errors.Join(n.ov.Reconcile(n.node, remotes), enableForwarding(), n.applyRules())
}

// storedRemotes reads the Nodes of the local store; own is this node's
// IPv4 podCIDR (nil until assigned), backend the one in force (the flag,
// else the server's on this node's Node, else vxlan). A Node that cannot
// be read is skipped with a warning: one bad object must not take every
// route down.
func (n *network) storedRemotes() (remotes []overlay.Remote, own *net.IPNet, backend string) {
	backend = n.backend
	for ref, raw := range n.store.List(mqtt.ResourceNodes) {
		var node corev1.Node
		if err := json.Unmarshal(raw, &node); err != nil {
			n.log.Warn("stored Node does not decode", "node", ref.Name, "err", err)
			continue
		}
		r, ok, err := overlay.RemoteFromNode(&node)
		if err != nil {
			n.log.Warn("stored Node is not routable", "node", ref.Name, "err", err)
			continue
		}
		if !ok {
			continue
		}
		if r.Name == n.node {
			if backend == "" {
				backend = node.Annotations[networkBackendAnnotation]
			}
			n.followClusterCIDR(node.Annotations[mqtt.AnnotationClusterCIDR])
			for _, c := range r.PodCIDRs {
				if c.IP.To4() != nil {
					own = c
				}
			}
			continue
		}
		remotes = append(remotes, r)
	}
	if backend == "" {
		backend = DefaultNetworkBackend
	}
	return remotes, own, backend
}

// applyRules writes the overlay's masquerade and forward chains (one
// transaction).
func (n *network) applyRules() error {
	conn, err := nft.Open(-1)
	if err != nil {
		return err
	}
	return overlay.ApplyRules(conn, n.cluster, n.bridge, overlay.DefaultDevice)
}

// followClusterCIDR takes the server's --cluster-cidr from this node's
// Node (node IPAM writes it) over the agent's default; a value that is
// not an IPv4 CIDR is ignored with a warning.
func (n *network) followClusterCIDR(v string) {
	if v == "" || v == n.cluster.String() {
		return
	}
	_, c, err := net.ParseCIDR(v)
	if err != nil || c.IP.To4() == nil {
		n.log.Warn("node's cluster CIDR annotation is not an IPv4 CIDR; keeping the agent's", "value", v, "cluster", n.cluster)
		return
	}
	n.cluster = c
}

// enableForwarding turns on IPv4 forwarding, without which no packet
// crosses from a pod to another node.
func enableForwarding() error {
	const path = "/proc/sys/net/ipv4/ip_forward"
	if b, err := os.ReadFile(path); err == nil && len(b) > 0 && b[0] == '1' {
		return nil
	}
	if err := os.WriteFile(path, []byte("1"), 0o644); err != nil {
		return fmt.Errorf("enable IPv4 forwarding: %w", err)
	}
	return nil
}

// SetOnNodes sets what the applier calls when the Nodes it stored
// changed (or after a resync).
func (a *Applier) SetOnNodes(f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.onNodes = f
}

// noteNodes calls onNodes when evs change a Node, a Service or an
// EndpointSlice (the network's run loop syncs routes and the service proxy).
func (a *Applier) noteNodes(evs []mqtt.Event) {
	if a.onNodes == nil {
		return
	}
	for _, ev := range evs {
		for _, c := range ev.Changes {
			if c.Resource == mqtt.ResourceNodes || servicesChanged(c.Resource) {
				a.onNodes()
				return
			}
		}
	}
}
