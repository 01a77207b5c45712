package nodeinfo

import (
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// capacity builds the node's capacity: CPU in whole cores (logical CPUs),
// memory and ephemeral storage in bytes, and the pod limit.
func capacity(cpus int, memory, storage uint64, maxPods int) corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(int64(cpus), resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity(int64(memory), resource.BinarySI),
		corev1.ResourceEphemeralStorage: *resource.NewQuantity(int64(storage), resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(int64(maxPods), resource.DecimalSI),
	}
}

// allocatable is capacity less what is reserved for the system, never
// below zero.
func allocatable(capacity, reserved corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(capacity))
	for name, c := range capacity {
		q := c.DeepCopy()
		if r, ok := reserved[name]; ok {
			q.Sub(r)
			if q.Sign() < 0 {
				q = *resource.NewQuantity(0, c.Format)
			}
		}
		out[name] = q
	}
	return out
}

// maxImages bounds the images reported, biggest first, as the kubelet
// does: the heartbeat must stay small and big images matter most to
// image-locality scoring.
const maxImages = 50

// images turns the runtime's image list into the NodeStatus shape: images
// with the same digest are one entry carrying every name and the
// name@digest form.
func images(list []runtime.Image) []corev1.ContainerImage {
	byDigest := map[string]*corev1.ContainerImage{}
	var order []string
	for _, img := range list {
		key := img.Digest
		if key == "" {
			key = img.Name
		}
		ci, ok := byDigest[key]
		if !ok {
			ci = &corev1.ContainerImage{}
			byDigest[key] = ci
			order = append(order, key)
		}
		ci.Names = append(ci.Names, img.Name)
		if img.Size > ci.SizeBytes {
			ci.SizeBytes = img.Size
		}
	}
	out := make([]corev1.ContainerImage, 0, len(order))
	for _, key := range order {
		ci := byDigest[key]
		sort.Strings(ci.Names)
		if key != ci.Names[0] {
			ci.Names = append(ci.Names, repository(ci.Names[0])+"@"+key)
		}
		out = append(out, *ci)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].SizeBytes > out[j].SizeBytes })
	if len(out) > maxImages {
		out = out[:maxImages]
	}
	return out
}

// imagePlatforms maps the names of the reported images (not their
// name@digest forms) to the platforms they offer; images that say nothing
// about their platforms are left out.
func imagePlatforms(list []runtime.Image, reported []corev1.ContainerImage) map[string][]string {
	keep := map[string]bool{}
	for _, ci := range reported {
		for _, n := range ci.Names {
			keep[n] = true
		}
	}
	out := map[string][]string{}
	for _, img := range list {
		if keep[img.Name] && len(img.Platforms) > 0 {
			ps := slices.Clone(img.Platforms)
			sort.Strings(ps)
			out[img.Name] = slices.Compact(ps)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// repository strips the tag or digest from a normalized reference.
func repository(ref string) string {
	if i := strings.IndexByte(ref, '@'); i >= 0 {
		ref = ref[:i]
	}
	slash := strings.LastIndexByte(ref, '/')
	if i := strings.LastIndexByte(ref, ':'); i > slash {
		ref = ref[:i]
	}
	return ref
}
