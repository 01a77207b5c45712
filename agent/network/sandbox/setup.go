package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
)

// Sandbox is a pod's network as its containers join it.
type Sandbox struct {
	// NetNS and UTSNS are the namespace files; empty for host-network pods.
	NetNS, UTSNS string
	// HostsFile and HostnameFile are mounted as /etc/hosts and
	// /etc/hostname; empty for host-network pods.
	HostsFile, HostnameFile string
	// ResolvFile is mounted as /etc/resolv.conf; empty: the host's.
	ResolvFile string
	Hostname   string
	IPs        []netip.Addr
}

// ErrNoPodCIDR says the node has no pod range yet: pods wait for it.
var ErrNoPodCIDR = errors.New("the node has no pod range (spec.podCIDR) yet")

// Setup makes the pod's sandbox, or returns the one it has. It is cheap
// when the sandbox is there; after a reboot (namespace files no longer
// pinned) the sandbox is made again, asking host-local for the address
// the pod had. Host-network pods get only their resolv.conf (hostResolv)
// and are remembered for Pods.
func (m *Manager) Setup(ctx context.Context, pod *corev1.Pod) (*Sandbox, error) {
	uid := string(pod.UID)
	if pod.Spec.HostNetwork {
		return m.setupHost(pod)
	}
	if !m.ready() {
		return nil, ErrNoPodCIDR
	}
	defer m.lock(uid)()
	rec, err := m.loadRecord(uid)
	if err != nil {
		return nil, err
	}
	if rec != nil && rec.Ready && isMounted(rec.NetNS) && isMounted(rec.UTSNS) {
		m.remember(pod, rec.IPs)
		return m.sandboxOf(rec), nil
	}
	var want netip.Addr
	if rec != nil { // half made, or a reboot took the namespaces
		if len(rec.IPs) > 0 {
			want = rec.IPs[0]
		}
		if err := m.teardown(ctx, rec); err != nil {
			return nil, err
		}
	}
	rec, err = m.create(ctx, pod, want)
	if err != nil {
		return nil, err
	}
	m.remember(pod, rec.IPs)
	return m.sandboxOf(rec), nil
}

func (m *Manager) sandboxOf(r *record) *Sandbox {
	sb := &Sandbox{NetNS: r.NetNS, UTSNS: r.UTSNS, HostsFile: m.HostsFile(r.UID),
		HostnameFile: m.HostnameFile(r.UID), Hostname: r.Hostname, IPs: r.IPs}
	if _, err := os.Stat(m.ResolvFile(r.UID)); err == nil {
		sb.ResolvFile = m.ResolvFile(r.UID)
	}
	return sb
}

// create records the sandbox, pins its namespaces and attaches the
// network; on failure it undoes what it did.
func (m *Manager) create(ctx context.Context, pod *corev1.Pod, want netip.Addr) (*record, error) {
	uid := string(pod.UID)
	rec := &record{UID: uid, Namespace: pod.Namespace, Name: pod.Name, Hostname: Hostname(pod),
		NetNS: filepath.Join(m.cfg.runDir(netNS), uid), UTSNS: filepath.Join(m.cfg.runDir(utsNS), uid)}
	if want.IsValid() {
		rec.IPs = []netip.Addr{want} // kept for the next try if this one dies
	}
	caps, err := capabilityArgs(pod)
	if err != nil {
		return nil, fmt.Errorf("pod %s/%s sandbox: %w", pod.Namespace, pod.Name, err)
	}
	rec.Caps = caps
	if err := m.saveRecord(rec); err != nil {
		return nil, fmt.Errorf("pod %s/%s sandbox: %w", pod.Namespace, pod.Name, err)
	}
	if err := m.attach(ctx, pod, rec, want); err != nil {
		return nil, errors.Join(fmt.Errorf("pod %s/%s sandbox: %w", pod.Namespace, pod.Name, err), m.teardown(ctx, rec))
	}
	return rec, nil
}

func (m *Manager) attach(ctx context.Context, pod *corev1.Pod, rec *record, want netip.Addr) error {
	if err := createNS(rec.NetNS, netNS, nil); err != nil {
		return err
	}
	hostname := func() error { return unix.Sethostname([]byte(rec.Hostname)) }
	if err := createNS(rec.UTSNS, utsNS, hostname); err != nil {
		return err
	}
	ips, err := m.add(ctx, rec, want)
	if err != nil {
		return err
	}
	rec.IPs = ips
	if err := os.WriteFile(m.HostsFile(rec.UID), hostsFile(pod, ips, m.cfg.ClusterDomain), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(m.HostnameFile(rec.UID), []byte(rec.Hostname+"\n"), 0o644); err != nil {
		return err
	}
	if m.cfg.ResolvConf != nil {
		if err := os.WriteFile(m.ResolvFile(rec.UID), m.cfg.ResolvConf(pod), 0o644); err != nil {
			return err
		}
	}
	rec.Ready = true
	return m.saveRecord(rec)
}

// Teardown releases the pod's address (CNI DEL) and removes its
// namespaces and files. A pod without a sandbox is no error. On a failed
// DEL the record stays, so GC tries again at the next start.
func (m *Manager) Teardown(ctx context.Context, uid string) error {
	defer m.lock(uid)()
	defer m.locks.Delete(uid) // the pod is gone: its lock need not stay
	m.forget(uid)
	rec, err := m.loadRecord(uid)
	if err != nil {
		return err
	}
	if rec == nil { // a host-network pod's folder holds only its resolv.conf
		return os.RemoveAll(m.recordDir(uid))
	}
	if err := m.teardown(ctx, rec); err != nil {
		return err
	}
	return os.RemoveAll(m.recordDir(uid))
}

// setupHost gives a host-network pod the resolv.conf the kubelet writes
// for it (Config.ResolvConf: the cluster's for ClusterFirstWithHostNet,
// the node's for ClusterFirst and Default), in the pod's folder, which has
// no record: Teardown and GC remove it like a sandbox's.
func (m *Manager) setupHost(pod *corev1.Pod) (*Sandbox, error) {
	uid := string(pod.UID)
	sb := &Sandbox{Hostname: Hostname(pod)}
	if m.cfg.ResolvConf != nil {
		defer m.lock(uid)()
		if err := os.MkdirAll(m.recordDir(uid), 0o700); err != nil {
			return nil, fmt.Errorf("pod %s/%s resolv.conf: %w", pod.Namespace, pod.Name, err)
		}
		if err := os.WriteFile(m.ResolvFile(uid), m.cfg.ResolvConf(pod), 0o644); err != nil {
			return nil, fmt.Errorf("pod %s/%s resolv.conf: %w", pod.Namespace, pod.Name, err)
		}
		sb.ResolvFile = m.ResolvFile(uid)
	}
	m.remember(pod, nil)
	return sb, nil
}

// teardown runs the CNI DEL and unpins the namespaces of rec.
func (m *Manager) teardown(ctx context.Context, rec *record) error {
	if err := m.del(ctx, rec); err != nil {
		return fmt.Errorf("pod %s/%s: release network: %w", rec.Namespace, rec.Name, err)
	}
	return errors.Join(removeNS(rec.NetNS), removeNS(rec.UTSNS))
}
