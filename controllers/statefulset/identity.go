package statefulset

import (
	"maps"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels every StatefulSet pod carries.
const (
	// LabelPodName is the pod's own name, for a Service per pod.
	LabelPodName = appsv1.StatefulSetPodNameLabel
	// LabelPodIndex is the pod's ordinal.
	LabelPodIndex = appsv1.PodIndexLabel
	// LabelRevision is the name of the revision the pod was made from.
	LabelRevision = appsv1.StatefulSetRevisionLabel
)

// startOrdinal is the set's first ordinal (spec.ordinals.start, else 0).
func startOrdinal(set *appsv1.StatefulSet) int {
	if set.Spec.Ordinals != nil {
		return int(set.Spec.Ordinals.Start)
	}
	return 0
}

func replicaCount(set *appsv1.StatefulSet) int {
	if set.Spec.Replicas == nil {
		return 1
	}
	return int(*set.Spec.Replicas)
}

// podName is the name of the set's pod with ordinal ord.
func podName(set *appsv1.StatefulSet, ord int) string {
	return set.Name + "-" + strconv.Itoa(ord)
}

// ordinalOf parses the ordinal out of a pod of set; ok is false for a
// name that is not <set>-<ordinal>.
func ordinalOf(set *appsv1.StatefulSet, name string) (int, bool) {
	rest, found := strings.CutPrefix(name, set.Name+"-")
	if !found || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0
}

// claimName is the name of the claim template t makes for pod.
func claimName(t *corev1.PersistentVolumeClaim, pod string) string {
	return t.Name + "-" + pod
}

// newPod makes the set's pod ord from template, made at revision.
func newPod(set *appsv1.StatefulSet, template *corev1.PodTemplateSpec, revision string, ord int) *corev1.Pod {
	t := template.DeepCopy()
	name := podName(set, ord)
	labels := maps.Clone(t.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelPodName] = name
	labels[LabelPodIndex] = strconv.Itoa(ord)
	labels[LabelRevision] = revision
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: set.Namespace, Labels: labels, Annotations: t.Annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, setKind)},
		},
		Spec: t.Spec,
	}
	pod.Spec.Hostname = name
	pod.Spec.Subdomain = set.Spec.ServiceName
	pod.Spec.Volumes = withClaimVolumes(set, name, pod.Spec.Volumes)
	return pod
}

// withClaimVolumes points the volume named after each claim template at
// the pod's claim, replacing a template volume of that name.
func withClaimVolumes(set *appsv1.StatefulSet, pod string, vols []corev1.Volume) []corev1.Volume {
	out := make([]corev1.Volume, 0, len(vols)+len(set.Spec.VolumeClaimTemplates))
	claims := map[string]bool{}
	for i := range set.Spec.VolumeClaimTemplates {
		t := &set.Spec.VolumeClaimTemplates[i]
		claims[t.Name] = true
		out = append(out, corev1.Volume{Name: t.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimName(t, pod)},
		}})
	}
	for _, v := range vols {
		if !claims[v.Name] {
			out = append(out, v)
		}
	}
	return out
}

// newClaim makes the claim template t gives pod, labelled with the set's
// selector so that it can be found again.
func newClaim(set *appsv1.StatefulSet, t *corev1.PersistentVolumeClaim, pod string) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: claimName(t, pod), Namespace: set.Namespace,
			Labels: maps.Clone(t.Labels), Annotations: maps.Clone(t.Annotations),
		},
		Spec: *t.Spec.DeepCopy(),
	}
	if set.Spec.Selector != nil && len(set.Spec.Selector.MatchLabels) > 0 {
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		maps.Copy(c.Labels, set.Spec.Selector.MatchLabels)
	}
	return c
}
