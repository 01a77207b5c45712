// Package nodeinfo gathers what an agent reports about its node: capacity
// and allocatable (from gopsutil), nodeInfo, conditions, addresses, labels,
// taints, the images present and the board's temperature. Collect returns
// it all; Node.Heartbeat puts it in the shape of the MQTT status message.
package nodeinfo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// DefaultMaxPods is the pod capacity when Config.MaxPods is 0.
const DefaultMaxPods = 110

// OwnLabels are the labels the agent sets itself; --node-label may not.
var OwnLabels = map[string]bool{
	corev1.LabelArchStable: true, corev1.LabelOSStable: true, corev1.LabelHostname: true, LabelBoard: true,
}

// LabelBoard carries the board model (BoardLabel of /proc/device-tree/model).
const LabelBoard = "bramble.io/board"

// RuntimeInfo is what Collect asks of the container runtime;
// *runtime.Containerd has it.
type RuntimeInfo interface {
	Version(ctx context.Context) (string, error)
	ListImages(ctx context.Context) ([]runtime.Image, error)
}

// Config says what to collect.
type Config struct {
	// NodeName defaults to the hostname, lower-cased.
	NodeName string
	// NodeIP is --node-ip; empty picks an address of the default route's
	// interface, else the first non-loopback address.
	NodeIP string
	// NodeExternalIP is --node-external-ip: reported as the ExternalIP.
	NodeExternalIP string
	// Annotations are the agent's own Node annotations (the overlay's
	// vxlan MAC and node IP), sent with every heartbeat.
	Annotations map[string]string
	// SystemReserved is taken from capacity to give allocatable
	// (ParseReserved reads --system-reserved).
	SystemReserved corev1.ResourceList
	// MaxPods is the pod capacity; 0 means DefaultMaxPods.
	MaxPods int
	// DataDir lies on the filesystem reported as ephemeral storage; it
	// need not exist yet (its nearest existing parent is measured).
	DataDir string
	// Labels (ParseLabels) and Taints (ParseTaints) come from the flags.
	Labels map[string]string
	Taints []corev1.Taint
	// Thresholds for the pressure conditions; zero fields take defaults.
	Thresholds Thresholds
	// Runtime answers for Ready and lists images; nil makes Ready False.
	Runtime RuntimeInfo
	// Root is where /proc, /sys and /etc are read from; "" means "/".
	// Tests point it at a fake tree. gopsutil's figures (CPUs, memory,
	// filesystem usage) and uname always come from the real machine.
	Root string
}

// Node is one collection's result.
type Node struct {
	Name        string
	Status      corev1.NodeStatus
	Labels      map[string]string
	Taints      []corev1.Taint
	Annotations map[string]string
	// BoardModel is /proc/device-tree/model as written ("Raspberry Pi 4
	// Model B Rev 1.4"); empty off ARM boards.
	BoardModel string
	// TemperatureCelsius is nil when no thermal zone is readable.
	TemperatureCelsius *float64
	// ImagePlatforms maps each reported image name to the platforms the
	// image offers, for the scheduler's architecture check.
	ImagePlatforms map[string][]string
}

func (c *Config) setDefaults() error {
	if c.Root == "" {
		c.Root = "/"
	}
	if c.MaxPods == 0 {
		c.MaxPods = DefaultMaxPods
	}
	if c.MaxPods < 0 {
		return fmt.Errorf("--max-pods: got %d, want a positive number", c.MaxPods)
	}
	if c.DataDir == "" {
		return fmt.Errorf("--data-dir: must be set")
	}
	if c.NodeName == "" {
		h, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("--node-name not set and no hostname: %w", err)
		}
		c.NodeName = strings.ToLower(h)
	}
	if msgs := validation.IsDNS1123Subdomain(c.NodeName); len(msgs) > 0 {
		return fmt.Errorf("--node-name: %q: %s", c.NodeName, strings.Join(msgs, "; "))
	}
	c.Thresholds.setDefaults()
	return nil
}

// Collect reads the node's figures now. It fails only when a figure the
// scheduler needs (CPUs, memory, the data directory's filesystem) cannot
// be read; a runtime that does not answer makes Ready False instead.
func Collect(ctx context.Context, cfg Config) (*Node, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, fmt.Errorf("collect node status: %w", err)
	}
	n := &Node{Name: cfg.NodeName, Taints: cfg.Taints, Annotations: cfg.Annotations}
	res, err := readResources(ctx, cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("collect node status: %w", err)
	}
	capa := capacity(res.cpus, res.memTotal, res.diskTotal, cfg.MaxPods)
	n.Status.Capacity = capa
	n.Status.Allocatable = allocatable(capa, cfg.SystemReserved)
	n.Status.NodeInfo, n.BoardModel = systemInfo(cfg.Root)
	n.Status.Addresses, err = addresses(cfg.Root, cfg.NodeIP, cfg.NodeExternalIP)
	if err != nil {
		return nil, fmt.Errorf("collect node status: %w", err)
	}
	ready, list := askRuntime(ctx, cfg.Runtime, &n.Status.NodeInfo)
	n.Status.Images = images(list)
	n.ImagePlatforms = imagePlatforms(list, n.Status.Images)
	n.Status.Conditions = append([]corev1.NodeCondition{ready}, pressures(cfg, res)...)
	n.Labels = labels(cfg, n)
	if t, ok := temperature(cfg.Root); ok {
		n.TemperatureCelsius = &t
	}
	return n, nil
}

// pressures judges memory, disk and PID pressure from res.
func pressures(cfg Config, res resources) []corev1.NodeCondition {
	th := cfg.Thresholds
	mem := memoryPressure(res.memAvailable, res.memTotal, th.MemoryAvailable)
	disk := diskPressure(res.diskFree, res.diskTotal, res.inodesFree, res.inodesTotal, th.DiskFree, th.InodesFree)
	used, err := readPIDsInUse(cfg.Root)
	if err != nil {
		return []corev1.NodeCondition{mem, disk, unknown(corev1.NodePIDPressure, err)}
	}
	max, err := readInt(filepath.Join(cfg.Root, "proc/sys/kernel/pid_max"))
	if err != nil {
		return []corev1.NodeCondition{mem, disk, unknown(corev1.NodePIDPressure, err)}
	}
	return []corev1.NodeCondition{mem, disk, pidPressure(used, max, th.PIDsFree)}
}

func readPIDsInUse(root string) (int64, error) {
	b, err := os.ReadFile(filepath.Join(root, "proc/loadavg"))
	if err != nil {
		return 0, err
	}
	return pidsInUse(b)
}

// labels are the agent's own labels plus the operator's.
func labels(cfg Config, n *Node) map[string]string {
	out := make(map[string]string, len(cfg.Labels)+4)
	for k, v := range cfg.Labels {
		out[k] = v
	}
	arch, _, _ := strings.Cut(n.Status.NodeInfo.Architecture, "/")
	out[corev1.LabelArchStable] = arch
	out[corev1.LabelOSStable] = n.Status.NodeInfo.OperatingSystem
	out[corev1.LabelHostname] = cfg.NodeName
	if b := BoardLabel(n.BoardModel); b != "" {
		out[LabelBoard] = b
	}
	return out
}
