package pods

import (
	"context"
	"errors"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/network/sandbox"
	"github.com/bramble-edge/bramble/agent/runtime"
)

// Network gives pods that are not on the host's network a sandbox of
// their own; *sandbox.Manager is it. Without one (Config.Network nil)
// every pod shares the host's network, as hostNetwork pods always do.
type Network interface {
	// Setup makes the pod's sandbox or returns the one it has.
	Setup(ctx context.Context, pod *corev1.Pod) (*sandbox.Sandbox, error)
	// Teardown releases the pod's address and removes its sandbox.
	Teardown(ctx context.Context, uid string) error
	// GC tears down the sandboxes of pods keep does not want; it runs
	// once, before the first worker starts.
	GC(ctx context.Context, keep func(uid string) bool) error
}

var _ Network = (*sandbox.Manager)(nil)

// ensureSandbox sets up the pod's network until it has one; containers
// wait (ContainerCreating, with the reason) meanwhile.
func (w *worker) ensureSandbox(ctx context.Context, pod *corev1.Pod) {
	now := w.m.cfg.Clock.Now()
	if w.m.cfg.Network == nil || w.sb != nil || now.Before(w.netNext) {
		return
	}
	sb, err := w.m.cfg.Network.Setup(ctx, pod)
	if err != nil {
		if w.netErr == nil || w.netErr.Error() != err.Error() {
			w.log.Warn("pod network", "err", err)
		}
		switch {
		case errors.Is(err, sandbox.ErrNoPodCIDR):
			err = errors.New("waiting for the node's pod range (spec.podCIDR) from the server")
		case !errors.Is(err, sandbox.ErrNoConfig):
			// A failed ADD costs process starts and is undone: retry with back-off.
			w.netBackoff = nextBackoff(w.netBackoff, time.Second, time.Minute)
			w.netNext = now.Add(w.netBackoff)
		}
		w.netErr = err
		return
	}
	w.sb, w.netErr, w.netBackoff = sb, nil, 0
}

// runtimeSandbox is what the pod's containers join; on the host's network
// nil, or only the pod's resolv.conf when the Network wrote one.
func (w *worker) runtimeSandbox(pod *corev1.Pod) *runtime.Sandbox {
	if w.sb == nil {
		return nil
	}
	if pod.Spec.HostNetwork {
		if w.sb.ResolvFile == "" {
			return nil
		}
		return &runtime.Sandbox{HostNetwork: true, ResolvFile: w.sb.ResolvFile}
	}
	return &runtime.Sandbox{NetNS: w.sb.NetNS, UTSNS: w.sb.UTSNS, HostsFile: w.sb.HostsFile,
		HostnameFile: w.sb.HostnameFile, ResolvFile: w.sb.ResolvFile, Hostname: w.sb.Hostname}
}

// podIPs are the pod's addresses: the node's on the host network (or with
// no Network), the sandbox's otherwise (none before it exists).
func (w *worker) podIPs(pod *corev1.Pod) []string {
	if w.m.cfg.Network == nil || pod.Spec.HostNetwork {
		if w.m.cfg.NodeIP == "" {
			return nil
		}
		return []string{w.m.cfg.NodeIP}
	}
	if w.sb == nil {
		return nil
	}
	out := make([]string, len(w.sb.IPs))
	for i, ip := range w.sb.IPs {
		out[i] = ip.String()
	}
	return out
}

// probeAddr is where httpGet and tcpSocket probes without a host go.
func (w *worker) probeAddr(pod *corev1.Pod) string {
	if w.sb != nil && !pod.Spec.HostNetwork && len(w.sb.IPs) > 0 {
		return w.sb.IPs[0].String()
	}
	return "127.0.0.1"
}

// teardownNetwork releases the pod's sandbox once its containers are gone.
func (m *Manager) teardownNetwork(ctx context.Context, uid types.UID) {
	if m.cfg.Network == nil {
		return
	}
	if err := m.cfg.Network.Teardown(ctx, string(uid)); err != nil {
		m.log.Warn("release pod network", "pod_uid", uid, "err", err)
	}
}

// gcNetwork runs the Network's GC once, before any worker sets up a pod.
func (m *Manager) gcNetwork(ctx context.Context, want map[types.UID]bool) {
	if m.cfg.Network == nil {
		return
	}
	if err := m.cfg.Network.GC(ctx, func(uid string) bool { return want[types.UID(uid)] }); err != nil {
		m.log.Warn("pod network cleanup", "err", err)
	}
}

// gcNetworkOnce runs the Network's GC the first time it is called while
// started, before any worker sets a pod up: want is every pod wanted.
func (m *Manager) gcNetworkOnce(wanted map[types.UID]bool) {
	want := maps.Clone(wanted)
	m.mu.Lock()
	run := m.ctx != nil && !m.netGC
	m.netGC = m.netGC || run
	ctx := m.ctx
	for uid := range m.workers {
		want[uid] = true
	}
	m.mu.Unlock()
	if run {
		m.gcNetwork(ctx, want)
	}
}
