// Package eviction is the agent's eviction manager, as the kubelet's: it
// evicts pods that exceed their own ephemeral-storage limits or emptyDir
// sizeLimits, and, when the node runs short of disk or memory past the
// --eviction-hard thresholds, one pod per round in the kubelet's order.
// The pressure conditions themselves are judged by agent/nodeinfo with
// the same thresholds and reported with the heartbeat.
package eviction

import (
	"context"
	"log/slog"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/nodeinfo"
	"github.com/bramble-edge/bramble/internal/periodic"
)

// PodUsage is what one running pod holds of the node's ephemeral
// storage, in bytes.
type PodUsage struct {
	Pod *corev1.Pod
	// EmptyDirs by volume name (medium Memory included: it counts against
	// its sizeLimit, not against the node's disk).
	EmptyDirs map[string]int64
	// Containers by name: log files and writable layer.
	Containers map[string]int64
	// Disk is the pod's total on the node's filesystem.
	Disk int64
	// Memory is the pod cgroup's working set; 0 when not measured.
	Memory int64
}

// Pods is the pod worker as the eviction manager sees it.
type Pods interface {
	// Usage measures the running pods.
	Usage(ctx context.Context) []PodUsage
	// Evict fails the pod with reason Evicted and message, frees its
	// disk; false when the pod is not running.
	Evict(uid types.UID, message string) bool
}

// Config configures a Manager; zero values take defaults.
type Config struct {
	// DataDir lies on the node filesystem (nodefs) measured for DiskFree.
	DataDir string
	// Thresholds are --eviction-hard's (nodeinfo.ParseEvictionHard).
	Thresholds nodeinfo.Thresholds
	// Interval between rounds (10 s, the kubelet's housekeeping period).
	Interval time.Duration
	// Root is where /proc is read from ("/").
	Root string
	// Exempt pods are never evicted (the agent's static pods, which the
	// kubelet counts as critical).
	Exempt func(*corev1.Pod) bool
	// ReclaimDisk, when set, frees node-level disk (unused images) before
	// a pod is evicted for a short disk, as the kubelet reclaims before it
	// evicts; the disk is measured again after it.
	ReclaimDisk func(ctx context.Context)
	Logger      *slog.Logger
}

// Manager runs eviction rounds.
type Manager struct {
	cfg  Config
	pods Pods
	log  *slog.Logger
}

// New builds a Manager over pods.
func New(pods Pods, cfg Config) *Manager {
	if cfg.Interval <= 0 {
		cfg.Interval = 10 * time.Second
	}
	if cfg.Root == "" {
		cfg.Root = "/"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Thresholds = nodeinfo.WithDefaults(cfg.Thresholds)
	return &Manager{cfg: cfg, pods: pods, log: cfg.Logger}
}

// Run runs a round every Interval until ctx ends.
func (m *Manager) Run(ctx context.Context) {
	periodic.Every(ctx, m.cfg.Interval, func() { m.Round(ctx) })
}

// Round evicts every pod over its own local-storage limits; when none
// is, and the node is short of disk or memory, it evicts the first pod
// in the kubelet's order. It returns the pods evicted.
func (m *Manager) Round(ctx context.Context) []types.UID {
	usage := slices.DeleteFunc(m.pods.Usage(ctx), func(u PodUsage) bool {
		return m.cfg.Exempt != nil && m.cfg.Exempt(u.Pod)
	})
	if out := m.evictAll(overLimits(usage)); len(out) > 0 {
		return out
	}
	for _, s := range m.signals() {
		if !s.pressed || m.reclaimed(ctx, s) {
			continue
		}
		for _, c := range rank(usage, s.resource) {
			if m.pods.Evict(c.pod.Pod.UID, s.message(c)) {
				m.log.Info("evicted pod", "pod", c.pod.Pod.Namespace+"/"+c.pod.Pod.Name, "resource", s.resource)
				return []types.UID{c.pod.Pod.UID}
			}
		}
	}
	return nil
}

// reclaimed frees node-level disk for a disk signal and reports whether
// the pressure is gone after it.
func (m *Manager) reclaimed(ctx context.Context, s signal) bool {
	if s.resource != corev1.ResourceEphemeralStorage || m.cfg.ReclaimDisk == nil {
		return false
	}
	m.cfg.ReclaimDisk(ctx)
	for _, after := range m.signals() {
		if after.resource == s.resource {
			if !after.pressed {
				m.log.Info("disk pressure relieved by removing unused images; no pod evicted")
			}
			return !after.pressed
		}
	}
	return false
}

func (m *Manager) evictAll(v []violation) []types.UID {
	var out []types.UID
	for _, x := range v {
		if m.pods.Evict(x.uid, x.message) {
			m.log.Info("evicted pod over its local storage limit", "uid", x.uid, "message", x.message)
			out = append(out, x.uid)
		}
	}
	return out
}
