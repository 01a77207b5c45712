package daemonset

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Labels every daemon pod carries.
const (
	// LabelRevisionHash is the hash of the template the pod was made from.
	LabelRevisionHash = appsv1.ControllerRevisionHashLabelKey
	// LabelTemplateGeneration is the DaemonSet's generation at the pod's creation.
	LabelTemplateGeneration = "pod-template-generation"
)

// templateHash hashes the pod template after defaulting it as the API
// would a pod, so that templates differing only in what defaulting fills
// in ("resources: {}", an explicit default restartPolicy) hash alike.
func templateHash(t *corev1.PodTemplateSpec) string {
	pod := &corev1.Pod{ObjectMeta: *t.ObjectMeta.DeepCopy(), Spec: *t.Spec.DeepCopy()}
	api.Default(pod)
	data, err := json.Marshal(corev1.PodTemplateSpec{ObjectMeta: pod.ObjectMeta, Spec: pod.Spec})
	if err != nil { // cannot happen for these typed structs
		data = fmt.Appendf(nil, "%#v", pod)
	}
	h := fnv.New32a()
	h.Write(data)
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// podHash is the template hash a pod was made from.
func podHash(pod *corev1.Pod) string { return pod.Labels[LabelRevisionHash] }

// newPod makes the DaemonSet's pod for node, bound to it.
func newPod(ds *appsv1.DaemonSet, hash, node string) *corev1.Pod {
	t := ds.Spec.Template.DeepCopy()
	labels := maps.Clone(t.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelRevisionHash] = hash
	labels[LabelTemplateGeneration] = strconv.FormatInt(ds.Generation, 10)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: ds.Name + "-", Namespace: ds.Namespace,
			Labels: labels, Annotations: t.Annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
		},
		Spec: t.Spec,
	}
	pod.Spec.NodeName = node
	pod.Spec.Tolerations = withDaemonTolerations(&t.Spec)
	return pod
}

func (c *Controller) createPod(ctx context.Context, key string, ds *appsv1.DaemonSet, hash, node string) error {
	out, err := c.client.Create(ctx, newPod(ds, hash, node))
	if err != nil {
		c.rec.Eventf(ds, corev1.EventTypeWarning, "FailedCreate", "Error creating pod on node %s: %v", node, err)
		return fmt.Errorf("create pod of daemonset %s on node %s: %w", key, node, err)
	}
	c.exp.ExpectCreate(key, out.GetName())
	c.rec.Eventf(ds, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", out.GetName())
	return nil
}

// deletePod deletes pod unless it is gone already (or a namesake with
// another UID took its name).
func (c *Controller) deletePod(ctx context.Context, key string, ds *appsv1.DaemonSet, pod *corev1.Pod) error {
	err := c.client.Delete(ctx, podResource, pod.Namespace, pod.Name, controllers.DeleteOptions{UID: string(pod.UID)})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	if err != nil {
		c.rec.Eventf(ds, corev1.EventTypeWarning, "FailedDelete", "Error deleting pod %s: %v", pod.Name, err)
		return fmt.Errorf("delete pod %s of daemonset %s: %w", pod.Name, key, err)
	}
	c.exp.ExpectDelete(key, pod.Name, pod.UID)
	c.rec.Eventf(ds, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %s", pod.Name)
	return nil
}
