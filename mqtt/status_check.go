package mqtt

import (
	"errors"
	"fmt"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Limits of the status payloads. A heartbeat comes every few seconds from
// every node and must stay small; a pod status batch may cover many pods.
const (
	MaxHeartbeatBytes = 64 << 10
	MaxPodStatusBytes = 1 << 20
	// MaxHeartbeatImages is how many images a heartbeat may list (the
	// kubelet reports at most 50 by default).
	MaxHeartbeatImages = 100
	// MaxPodStatusBatch is how many pods one report may carry.
	MaxPodStatusBatch = 256
	maxLabels         = 64
	maxTaints         = 32
	maxConditions     = 16
	maxAddresses      = 16
	maxTextBytes      = 1024
)

// nodeConditionTypes are the conditions an agent may report.
var nodeConditionTypes = map[corev1.NodeConditionType]bool{
	corev1.NodeReady: true, corev1.NodeMemoryPressure: true, corev1.NodeDiskPressure: true,
	corev1.NodePIDPressure: true, corev1.NodeNetworkUnavailable: true,
}

var addressTypes = map[corev1.NodeAddressType]bool{
	corev1.NodeHostName: true, corev1.NodeInternalIP: true, corev1.NodeExternalIP: true,
	corev1.NodeInternalDNS: true, corev1.NodeExternalDNS: true,
}

func (h *Heartbeat) check() error {
	if err := checkNodeName(h.Node); err != nil {
		return err
	}
	switch {
	case h.Seq == 0:
		return errors.New("seq: got 0, want > 0")
	case h.IntervalSeconds < 1 || h.IntervalSeconds > 3600:
		return fmt.Errorf("intervalSeconds: got %d, want 1 to 3600", h.IntervalSeconds)
	}
	if err := checkLabels(h.Labels); err != nil {
		return err
	}
	if err := checkTaints(h.Taints); err != nil {
		return err
	}
	if err := checkAgentAnnotations(h.Annotations); err != nil {
		return err
	}
	if err := h.Status.check(); err != nil {
		return fmt.Errorf("status.%w", err)
	}
	if h.Usage != nil {
		if err := h.Usage.check(); err != nil {
			return fmt.Errorf("usage.%w", err)
		}
	}
	return nil
}

func checkNodeName(name string) error {
	if name == "" {
		return errors.New("node: missing")
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return fmt.Errorf("node: %q: %s", name, strings.Join(msgs, "; "))
	}
	return nil
}

func checkLabels(labels map[string]string) error {
	if len(labels) > maxLabels {
		return fmt.Errorf("labels: got %d, want at most %d", len(labels), maxLabels)
	}
	for k, v := range labels {
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			return fmt.Errorf("labels[%q]: key: %s", k, strings.Join(msgs, "; "))
		}
		if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
			return fmt.Errorf("labels[%q]: value %q: %s", k, v, strings.Join(msgs, "; "))
		}
	}
	return nil
}

func checkTaints(taints []corev1.Taint) error {
	if len(taints) > maxTaints {
		return fmt.Errorf("taints: got %d, want at most %d", len(taints), maxTaints)
	}
	for i, t := range taints {
		if msgs := validation.IsQualifiedName(t.Key); len(msgs) > 0 {
			return fmt.Errorf("taints[%d].key: %q: %s", i, t.Key, strings.Join(msgs, "; "))
		}
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
			return fmt.Errorf("taints[%d].value: %q: %s", i, t.Value, strings.Join(msgs, "; "))
		}
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			return fmt.Errorf("taints[%d].effect: got %q, want NoSchedule, PreferNoSchedule or NoExecute", i, t.Effect)
		}
		if t.TimeAdded != nil {
			return fmt.Errorf("taints[%d].timeAdded: set by the server, not the agent", i)
		}
	}
	return nil
}

func (r *NodeReport) check() error {
	if err := checkResources("capacity", r.Capacity, nil); err != nil {
		return err
	}
	if err := checkResources("allocatable", r.Allocatable, r.Capacity); err != nil {
		return err
	}
	if err := checkConditions(r.Conditions); err != nil {
		return err
	}
	if err := checkAddresses(r.Addresses); err != nil {
		return err
	}
	if err := checkNodeInfo(&r.NodeInfo); err != nil {
		return err
	}
	if err := checkImages(r.Images); err != nil {
		return err
	}
	if err := checkImagePlatforms(r.ImagePlatforms); err != nil {
		return err
	}
	if t := r.TemperatureCelsius; t != nil && (math.IsNaN(*t) || *t < -100 || *t > 200) {
		return fmt.Errorf("temperatureCelsius: got %v, want -100 to 200", *t)
	}
	return nil
}

// checkResources wants cpu and memory, qualified resource names, no
// negative figure, and (for allocatable) nothing above capacity.
func checkResources(field string, list, capacity corev1.ResourceList) error {
	for _, want := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if _, ok := list[want]; !ok {
			return fmt.Errorf("%s[%s]: missing", field, want)
		}
	}
	for name, q := range list {
		if msgs := validation.IsQualifiedName(string(name)); len(msgs) > 0 {
			return fmt.Errorf("%s: resource name %q: %s", field, name, strings.Join(msgs, "; "))
		}
		if q.Sign() < 0 {
			return fmt.Errorf("%s[%s]: got %s, want >= 0", field, name, q.String())
		}
		if c, ok := capacity[name]; ok && q.Cmp(c) > 0 {
			return fmt.Errorf("%s[%s]: got %s, more than capacity %s", field, name, q.String(), c.String())
		}
	}
	return nil
}

func checkConditions(conds []NodeCondition) error {
	if len(conds) > maxConditions {
		return fmt.Errorf("conditions: got %d, want at most %d", len(conds), maxConditions)
	}
	seen := map[corev1.NodeConditionType]bool{}
	for i, c := range conds {
		switch {
		case !nodeConditionTypes[c.Type]:
			return fmt.Errorf("conditions[%d].type: got %q, want Ready, MemoryPressure, DiskPressure, PIDPressure or NetworkUnavailable", i, c.Type)
		case seen[c.Type]:
			return fmt.Errorf("conditions[%d].type: %s is reported twice", i, c.Type)
		case c.Status != corev1.ConditionTrue && c.Status != corev1.ConditionFalse && c.Status != corev1.ConditionUnknown:
			return fmt.Errorf("conditions[%d].status: got %q, want True, False or Unknown", i, c.Status)
		case len(c.Reason) > 128:
			return fmt.Errorf("conditions[%d].reason: %d bytes, want at most 128", i, len(c.Reason))
		case len(c.Message) > maxTextBytes:
			return fmt.Errorf("conditions[%d].message: %d bytes, want at most %d", i, len(c.Message), maxTextBytes)
		}
		seen[c.Type] = true
	}
	if !seen[corev1.NodeReady] {
		return errors.New("conditions: Ready is missing")
	}
	return nil
}

func checkAddresses(addrs []corev1.NodeAddress) error {
	if len(addrs) > maxAddresses {
		return fmt.Errorf("addresses: got %d, want at most %d", len(addrs), maxAddresses)
	}
	for i, a := range addrs {
		switch {
		case !addressTypes[a.Type]:
			return fmt.Errorf("addresses[%d].type: got %q, want Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS", i, a.Type)
		case a.Address == "" || len(a.Address) > 253:
			return fmt.Errorf("addresses[%d].address: got %d bytes, want 1 to 253", i, len(a.Address))
		}
	}
	return nil
}

func checkNodeInfo(info *corev1.NodeSystemInfo) error {
	switch {
	case info.Architecture == "":
		return errors.New("nodeInfo.architecture: missing")
	case info.OperatingSystem == "":
		return errors.New("nodeInfo.operatingSystem: missing")
	}
	for name, v := range map[string]string{
		"machineID": info.MachineID, "systemUUID": info.SystemUUID, "bootID": info.BootID,
		"kernelVersion": info.KernelVersion, "osImage": info.OSImage,
		"containerRuntimeVersion": info.ContainerRuntimeVersion, "kubeletVersion": info.KubeletVersion,
		//lint:ignore SA1019 deprecated, yet a node can still send it, and the server stores what it sends: bounded like the rest.
		"kubeProxyVersion": info.KubeProxyVersion, "operatingSystem": info.OperatingSystem,
		"architecture": info.Architecture,
	} {
		if len(v) > 256 {
			return fmt.Errorf("nodeInfo.%s: %d bytes, want at most 256", name, len(v))
		}
	}
	return nil
}

func checkImages(images []corev1.ContainerImage) error {
	if len(images) > MaxHeartbeatImages {
		return fmt.Errorf("images: got %d, want at most %d", len(images), MaxHeartbeatImages)
	}
	for i, img := range images {
		if len(img.Names) == 0 {
			return fmt.Errorf("images[%d].names: missing", i)
		}
		for j, n := range img.Names {
			if n == "" || len(n) > maxTextBytes {
				return fmt.Errorf("images[%d].names[%d]: got %d bytes, want 1 to %d", i, j, len(n), maxTextBytes)
			}
		}
		if img.SizeBytes < 0 {
			return fmt.Errorf("images[%d].sizeBytes: got %d, want >= 0", i, img.SizeBytes)
		}
	}
	return nil
}

// maxPlatformsPerImage bounds one image's platform list (multi-arch images
// offer a handful).
const maxPlatformsPerImage = 16

func checkImagePlatforms(m map[string][]string) error {
	if len(m) > MaxHeartbeatImages {
		return fmt.Errorf("imagePlatforms: got %d images, want at most %d", len(m), MaxHeartbeatImages)
	}
	for ref, ps := range m {
		if ref == "" || len(ref) > maxTextBytes {
			return fmt.Errorf("imagePlatforms: image reference of %d bytes, want 1 to %d", len(ref), maxTextBytes)
		}
		if len(ps) == 0 || len(ps) > maxPlatformsPerImage {
			return fmt.Errorf("imagePlatforms[%s]: got %d platforms, want 1 to %d", ref, len(ps), maxPlatformsPerImage)
		}
		for _, p := range ps {
			if !validPlatform(p) {
				return fmt.Errorf("imagePlatforms[%s]: %q is not os/arch[/variant]", ref, p)
			}
		}
	}
	return nil
}

// validPlatform accepts os/arch or os/arch/variant of lower-case letters,
// digits and "_".
func validPlatform(p string) bool {
	parts := strings.Split(p, "/")
	if len(parts) < 2 || len(parts) > 3 || len(p) > 64 {
		return false
	}
	for _, part := range parts {
		if part == "" {
			return false
		}
		for _, c := range part {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
				return false
			}
		}
	}
	return true
}
