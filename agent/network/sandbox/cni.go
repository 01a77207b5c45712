package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sort"

	"github.com/containernetworking/cni/libcni"
	cnitypes "github.com/containernetworking/cni/pkg/types"
	current "github.com/containernetworking/cni/pkg/types/100"
	corev1 "k8s.io/api/core/v1"
)

// runtimeConf is the CNI call's description of the pod's attachment; the
// container ID is the pod's UID, so host-local's files name the pod.
func runtimeConf(rec *record, want netip.Addr) *libcni.RuntimeConf {
	args := [][2]string{{"IgnoreUnknown", "1"}, {"K8S_POD_NAMESPACE", rec.Namespace},
		{"K8S_POD_NAME", rec.Name}, {"K8S_POD_INFRA_CONTAINER_ID", rec.UID}, {"K8S_POD_UID", rec.UID}}
	if want.IsValid() {
		args = append(args, [2]string{"IP", want.String()}) // host-local: this address
	}
	return &libcni.RuntimeConf{ContainerID: rec.UID, NetNS: rec.NetNS, IfName: podIfName, Args: args}
}

// add attaches the pod: loopback, then the pod network (asking for want
// when valid, any address when that one is taken).
func (m *Manager) add(ctx context.Context, rec *record, want netip.Addr) ([]netip.Addr, error) {
	if _, err := m.cni.AddNetworkList(ctx, m.lo, runtimeConf(rec, netip.Addr{})); err != nil {
		return nil, fmt.Errorf("loopback: %w", err)
	}
	list, err := m.confList(rec)
	if err != nil {
		return nil, err
	}
	rt := runtimeConf(rec, want)
	rt.CapabilityArgs = rec.Caps
	res, err := m.cni.AddNetworkList(ctx, list, rt)
	if err != nil && want.IsValid() {
		m.log.Warn("pod's former address not available; taking another", "pod", rec.Namespace+"/"+rec.Name, "ip", want, "err", err)
		if derr := m.cni.DelNetworkList(ctx, list, rt); derr != nil {
			return nil, errors.Join(err, derr)
		}
		rt.Args = runtimeConf(rec, netip.Addr{}).Args
		res, err = m.cni.AddNetworkList(ctx, list, rt)
	}
	if err != nil {
		return nil, fmt.Errorf("CNI ADD %s: %w", list.Name, err)
	}
	return resultIPs(res)
}

// resultIPs are the addresses a CNI result gives the pod.
func resultIPs(res cnitypes.Result) ([]netip.Addr, error) {
	r, err := current.NewResultFromResult(res)
	if err != nil {
		return nil, fmt.Errorf("CNI result: %w", err)
	}
	var out []netip.Addr
	for _, ip := range r.IPs {
		a, ok := netip.AddrFromSlice(ip.Address.IP)
		if ok {
			out = append(out, a.Unmap())
		}
	}
	if len(out) == 0 {
		return nil, errors.New("CNI result: no address for the pod")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Is4() && !out[j].Is4() }) // IPv4 first
	return out, nil
}

// del releases the pod's attachment; plugins treat a namespace that is
// gone (after a reboot) and an attachment that is gone as done.
func (m *Manager) del(ctx context.Context, rec *record) error {
	list, err := m.confList(rec)
	if err != nil {
		return err
	}
	rt := runtimeConf(rec, netip.Addr{})
	rt.CapabilityArgs = rec.Caps
	if !isMounted(rec.NetNS) {
		rt.NetNS = "" // nothing to remove inside; the address and host rules still go
	}
	if err := m.cni.DelNetworkList(ctx, list, rt); err != nil {
		return fmt.Errorf("CNI DEL %s: %w", list.Name, err)
	}
	return nil
}

// capabilityArgs are the pod's hostPorts and bandwidth limits in the
// plugins' runtimeConfig shapes.
func capabilityArgs(pod *corev1.Pod) (map[string]any, error) {
	caps := map[string]any{}
	if pm := portMappings(pod); len(pm) > 0 {
		caps["portMappings"] = pm
	}
	bw, err := bandwidth(pod)
	if err != nil {
		return nil, err
	}
	if bw != nil {
		caps["bandwidth"] = bw
	}
	return caps, nil
}

// confList is the network config for rec's pod. From bramble's own config
// the portmap and bandwidth plugins are left out for a pod that has no
// hostPort or bandwidth annotation: each is a process started per ADD
// and DEL that would do nothing (a third of the CNI step's time).
func (m *Manager) confList(rec *record) (*libcni.NetworkConfigList, error) {
	list, err := loadConfList(m.cfg.ConfDir())
	if err != nil || list.Name != NetworkName {
		return list, err
	}
	used := map[string]bool{"portmap": rec.Caps["portMappings"] != nil, "bandwidth": rec.Caps["bandwidth"] != nil}
	out := *list
	out.Plugins = nil
	for _, p := range list.Plugins {
		if needed, optional := used[p.Network.Type]; !optional || needed {
			out.Plugins = append(out.Plugins, p)
		}
	}
	return &out, nil
}
