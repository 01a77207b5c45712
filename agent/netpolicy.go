package agent

import (
	"context"
	"log/slog"
	"net"
	"net/netip"

	"github.com/bramble-edge/bramble/agent/network/policy"
	"github.com/bramble-edge/bramble/agent/network/sandbox"
	"github.com/bramble-edge/bramble/mqtt"
)

// netPolicy enforces the NetworkPolicies selecting this node's pods
// (docs/NETWORKING.md, Policy) in table inet bramble of the agent's
// network namespace. It runs with the overlay (not with backend none):
// from the local store at start, server or not, then whenever the applier
// stores policies, namespaces, peers or pods, and whenever a sandbox is set
// up or released. The rules stay when the agent stops.
type netPolicy struct {
	enf     *policy.Enforcer
	store   *Store
	sb      *sandbox.Manager
	hostIPs []netip.Addr
}

func newNetPolicy(store *Store, sb *sandbox.Manager, nodeIP net.IP, log *slog.Logger) *netPolicy {
	p := &netPolicy{store: store, sb: sb}
	if ip, ok := netip.AddrFromSlice(nodeIP.To4()); ok {
		p.hostIPs = []netip.Addr{ip}
	}
	p.enf = policy.NewEnforcer(policy.NewApplier(policy.Config{}), store, p.localPods,
		log.With("component", "networkpolicy"))
	return p
}

// start runs the enforcer until ctx ends.
func (p *netPolicy) start(ctx context.Context) {
	p.enf.Start(ctx)
	<-ctx.Done()
	p.enf.Stop()
}

// localPods are the node's pods as policy sees them: labels and ports from
// the stored pod (they change without a new sandbox), addresses from the
// sandbox. A stored pod whose worker has not set it up again since the
// agent started keeps the addresses its sandbox record holds, so a restart
// opens no window in which its rules are gone. Pods the store does not
// hold (static pods) are taken as the sandbox saw them.
func (p *netPolicy) localPods() []policy.Pod {
	live := map[string]sandbox.PodNetwork{}
	for _, pn := range p.sb.Pods(p.hostIPs) {
		live[pn.UID] = pn
	}
	var out []policy.Pod
	for _, raw := range p.store.List(mqtt.ResourcePods) {
		pod, err := decodePod(raw)
		if err != nil {
			continue // the applier reports it; it has no sandbox
		}
		uid := string(pod.UID)
		pn, ok := live[uid]
		delete(live, uid)
		switch {
		case ok:
			out = append(out, policy.LocalPod(pod, pn.IPs))
		case pod.Spec.HostNetwork:
			out = append(out, policy.LocalPod(pod, p.hostIPs))
		default:
			if ips := p.sb.RecordedIPs(uid); len(ips) > 0 {
				out = append(out, policy.LocalPod(pod, ips))
			}
		}
	}
	for _, pn := range live {
		out = append(out, fromSandbox(pn))
	}
	return out
}

func fromSandbox(pn sandbox.PodNetwork) policy.Pod {
	p := policy.Pod{Namespace: pn.Namespace, Name: pn.Name, UID: pn.UID, Labels: pn.Labels, IPs: pn.IPs,
		HostNetwork: pn.HostNetwork}
	for _, cp := range pn.Ports {
		if cp.Name != "" {
			p.Ports = append(p.Ports, policy.Port{Name: cp.Name, Number: cp.Port, Protocol: string(cp.Protocol)})
		}
	}
	return p
}

// SetOnPolicy sets what the applier calls after storing changes that
// concern NetworkPolicy (policy.Relevant), and after every resync.
func (a *Applier) SetOnPolicy(f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.onPolicy = f
}

// notePolicy calls onPolicy when evs hold a change policy reads.
func (a *Applier) notePolicy(evs []mqtt.Event) {
	if a.onPolicy == nil {
		return
	}
	for _, ev := range evs {
		if policy.Relevant(ev.Changes) {
			a.onPolicy()
			return
		}
	}
}
