package scheduler

import (
	"unique"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
)

// podInfo is a pod with everything the scheduler derives from it computed
// once. It is never changed after newPodInfo returns, so snapshots and the
// queue can share it.
type podInfo struct {
	pod       *corev1.Pod
	key       string // namespace/name
	uid       types.UID
	priority  int32
	terminal  bool        // phase Succeeded or Failed: holds no resources
	req       resourceSet // what the pod needs on its node
	nonZero   resourceSet // req with scoring defaults for unset CPU and memory
	ports     []hostPort  // host ports the pod occupies
	spreadKey string      // pods with the same key belong together ("" = none)
	images    []string    // normalized image references
	nodes     *api.NodeMatcher
	preferred []weightedTerm
	affinity  []podTerm // required pod affinity
	anti      []podTerm // required pod anti-affinity
	// group keeps the one shared copy of spreadKey alive.
	group unique.Handle[string]
}

// newPodInfo derives a podInfo from a pod the caller no longer changes.
func newPodInfo(pod *corev1.Pod) *podInfo {
	spec := &pod.Spec
	p := &podInfo{
		pod:       pod,
		key:       podKey(pod.Namespace, pod.Name),
		uid:       pod.UID,
		terminal:  isTerminal(pod),
		req:       podRequests(spec, resourcesOf),
		nonZero:   podRequests(spec, nonZeroOf),
		ports:     podHostPorts(spec),
		images:    podImages(spec),
		nodes:     api.CompileNodeMatcher(spec),
		preferred: compilePreferred(spec),
		affinity:  requiredAffinity(pod),
		anti:      requiredAntiAffinity(pod),
	}
	if spec.Priority != nil {
		p.priority = *spec.Priority
	}
	if group, ok := spreadGroup(pod); ok {
		// The group's pods share one copy of the key, so the nodes'
		// spread counts compare it by pointer, not byte by byte.
		p.group = group
		p.spreadKey = group.Value()
	}
	return p
}

func podKey(namespace, name string) string { return namespace + "/" + name }

func isTerminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// spreadGroup groups pods that belong together: those of one controller
// (the owner reference marked controller), or, for bare pods, those of one
// namespace with the same "app" label. A bare pod without that label
// belongs to no group (false). The key ("owner:<uid>", "app:<ns>/<app>")
// is put together on the stack: interned, it is allocated once a group.
func spreadGroup(pod *corev1.Pod) (unique.Handle[string], bool) {
	var buf [96]byte
	var key []byte
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil && ref.UID != "" {
		key = append(append(buf[:0], "owner:"...), ref.UID...)
	} else if app := pod.Labels["app"]; app != "" {
		key = append(append(append(append(buf[:0], "app:"...), pod.Namespace...), '/'), app...)
	} else {
		return unique.Handle[string]{}, false
	}
	return unique.Make(string(key)), true
}

// hostPort is one port a pod holds on its node's network.
type hostPort struct {
	protocol corev1.Protocol
	ip       string
	port     int32
}

// podHostPorts lists the host ports a pod takes. bramble runs pods on the
// host network, so a port with a hostPort takes that port, and with
// spec.hostNetwork every containerPort is taken as itself.
func podHostPorts(spec *corev1.PodSpec) []hostPort {
	var out []hostPort
	for i := range spec.Containers {
		for _, cp := range spec.Containers[i].Ports {
			port := cp.HostPort
			if port == 0 && spec.HostNetwork {
				port = cp.ContainerPort
			}
			if port <= 0 {
				continue
			}
			proto := cp.Protocol
			if proto == "" {
				proto = corev1.ProtocolTCP
			}
			out = append(out, hostPort{protocol: proto, ip: cp.HostIP, port: port})
		}
	}
	return out
}

// conflicts reports whether two host ports cannot both be bound: same
// protocol and port, and addresses that overlap (equal, or either one the
// wildcard address).
func (a hostPort) conflicts(b hostPort) bool {
	if a.port != b.port || a.protocol != b.protocol {
		return false
	}
	return a.ip == b.ip || isWildcard(a.ip) || isWildcard(b.ip)
}

func isWildcard(ip string) bool {
	return ip == "" || ip == "0.0.0.0" || ip == "::"
}
