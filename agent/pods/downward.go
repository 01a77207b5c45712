package pods

import (
	"fmt"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// metaField resolves metadata.labels and metadata.annotations: whole (a
// volume file of key="value" lines, sorted, as the kubelet writes them) or
// one key (metadata.labels['key']).
func metaField(pod *corev1.Pod, path string) (string, bool) {
	for prefix, m := range map[string]map[string]string{"metadata.labels": pod.Labels, "metadata.annotations": pod.Annotations} {
		if path == prefix {
			return formatMap(m), true
		}
		if k, ok := strings.CutPrefix(path, prefix+"['"); ok && strings.HasSuffix(k, "']") {
			return m[strings.TrimSuffix(k, "']")], true
		}
	}
	return "", false
}

func formatMap(m map[string]string) string {
	lines := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		lines = append(lines, k+"="+strconv.Quote(m[k]))
	}
	return strings.Join(lines, "\n")
}

// resourceField resolves a resourceFieldRef (limits.cpu, requests.memory,
// limits.ephemeral-storage ...) of a container, divided by the divisor
// (default 1) and rounded up as the kubelet does. An unset limit is the
// node's capacity (CPUs, memory; ephemeral storage of the root filesystem).
func resourceField(pod *corev1.Pod, container string, ref *corev1.ResourceFieldSelector) (string, error) {
	c := podContainer(pod, container)
	if c == nil {
		return "", fmt.Errorf("resourceFieldRef %s: no container %q in the pod", ref.Resource, container)
	}
	kind, name, _ := strings.Cut(ref.Resource, ".")
	var list corev1.ResourceList
	switch kind {
	case "limits":
		list = c.Resources.Limits
	case "requests":
		list = c.Resources.Requests
	default:
		return "", fmt.Errorf("resourceFieldRef %q: want limits.<name> or requests.<name>", ref.Resource)
	}
	q, set := list[corev1.ResourceName(name)]
	if !set && kind == "limits" {
		q = nodeCapacity(name)
	}
	div := ref.Divisor
	if div.IsZero() {
		div = resource.MustParse("1")
	}
	switch name {
	case "cpu":
		return strconv.FormatInt(ceilDiv(q.MilliValue(), div.MilliValue()), 10), nil
	case "memory", "ephemeral-storage":
		return strconv.FormatInt(ceilDiv(q.Value(), div.Value()), 10), nil
	}
	return "", fmt.Errorf("resourceFieldRef %q: resource %q is not supported", ref.Resource, name)
}

func ceilDiv(a, b int64) int64 {
	if b <= 0 {
		return a
	}
	return (a + b - 1) / b
}

// podContainer finds a container (init and ephemeral ones included); ""
// is the first.
func podContainer(pod *corev1.Pod, name string) *corev1.Container {
	all := append(append([]corev1.Container{}, pod.Spec.Containers...), pod.Spec.InitContainers...)
	for i := range pod.Spec.EphemeralContainers {
		all = append(all, *asContainer(&pod.Spec.EphemeralContainers[i]))
	}
	for i := range all {
		if all[i].Name == name || name == "" {
			return &all[i]
		}
	}
	return nil
}

// nodeCapacity is what an unset limit reads as.
func nodeCapacity(name string) resource.Quantity {
	switch name {
	case "cpu":
		return *resource.NewQuantity(int64(goruntime.NumCPU()), resource.DecimalSI)
	case "memory":
		var si syscall.Sysinfo_t
		if syscall.Sysinfo(&si) == nil {
			return *resource.NewQuantity(int64(si.Totalram)*int64(si.Unit), resource.BinarySI)
		}
	case "ephemeral-storage":
		var st syscall.Statfs_t
		if syscall.Statfs("/", &st) == nil {
			return *resource.NewQuantity(int64(st.Blocks)*int64(st.Bsize), resource.BinarySI)
		}
	}
	return resource.Quantity{}
}

// expandEnv expands $(NAME) from env as the kubelet does for subPathExpr:
// "$$" is a literal "$", an unknown name stays as written.
func expandEnv(s string, env []runtime.EnvVar) string {
	vals := make(map[string]string, len(env))
	for _, e := range env {
		vals[e.Name] = e.Value
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "$$"):
			b.WriteByte('$')
			i++
		case strings.HasPrefix(s[i:], "$("):
			end := strings.IndexByte(s[i:], ')')
			v, ok := vals[s[i+2:i+max(end, 2)]]
			if end < 0 || !ok {
				b.WriteByte(s[i])
				continue
			}
			b.WriteString(v)
			i += end
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
