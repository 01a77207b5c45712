package scheduler

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Most versions of a pod the watch brings change nothing the scheduler
// derives from it: the binding coming back sets spec.nodeName, the node's
// status writes change the status. podInfoFor then copies the previous
// podInfo with the new pod in it instead of deriving everything again.

// podInfoFor derives pod's podInfo; prev, when not nil, is the podInfo of
// an earlier version of a pod with the same key, whose derivations are
// reused when none of their inputs changed (sameDerivation).
func podInfoFor(prev *podInfo, pod *corev1.Pod) *podInfo {
	if prev == nil || !sameDerivation(prev.pod, pod) {
		return newPodInfo(pod)
	}
	p := *prev
	p.pod = pod
	return &p
}

// sameDerivation reports whether newPodInfo derives the same from a and b
// (apart from the pod itself): every field newPodInfo reads is compared,
// which TestSameDerivationComparesEveryInput checks field by field.
func sameDerivation(a, b *corev1.Pod) bool {
	if a == b {
		return true
	}
	return a.Namespace == b.Namespace && a.Name == b.Name && a.UID == b.UID &&
		isTerminal(a) == isTerminal(b) &&
		controllerUID(a) == controllerUID(b) && a.Labels["app"] == b.Labels["app"] &&
		sameSpecDerivation(&a.Spec, &b.Spec)
}

// controllerUID is the UID of the pod's controller ("" for none).
func controllerUID(pod *corev1.Pod) string {
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		return string(ref.UID)
	}
	return ""
}

// sameSpecDerivation compares what newPodInfo reads from a spec: priority,
// host network, node selector, affinity, overhead and the containers'
// images, requests, ports and restart policies.
func sameSpecDerivation(a, b *corev1.PodSpec) bool {
	return samePtr(a.Priority, b.Priority) && a.HostNetwork == b.HostNetwork &&
		maps.Equal(a.NodeSelector, b.NodeSelector) && sameAffinity(a.Affinity, b.Affinity) &&
		sameResources(a.Overhead, b.Overhead) &&
		sameContainers(a.Containers, b.Containers) && sameContainers(a.InitContainers, b.InitContainers)
}

func samePtr[T comparable](a, b *T) bool {
	return a == b || (a != nil && b != nil && *a == *b)
}

// sameAffinity compares two affinities: usually both nil, or one shared
// by two versions whose spec decoded once.
func sameAffinity(a, b *corev1.Affinity) bool {
	return a == b || (a != nil && b != nil && equality.Semantic.DeepEqual(a, b))
}

// sameContainers compares what newPodInfo reads from containers. Versions
// that share their spec share the slice, which needs no more look.
func sameContainers(a, b []corev1.Container) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Image != y.Image || !samePtr(x.RestartPolicy, y.RestartPolicy) ||
			!sameResources(x.Resources.Requests, y.Resources.Requests) || !samePorts(x.Ports, y.Ports) {
			return false
		}
	}
	return true
}

func samePorts(a, b []corev1.ContainerPort) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameResources compares two resource lists by amount.
func sameResources(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		r, ok := b[name]
		if !ok || q.Cmp(r) != 0 {
			return false
		}
	}
	return true
}
