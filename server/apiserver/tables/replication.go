package tables

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// ReplicationController prints as upstream's: NAME DESIRED CURRENT READY
// AGE, and -o wide the template's containers, images and the selector.
func init() { queuePrinters(replicationPrinters) }

func replicationPrinters() {
	register("ReplicationController", replicationControllerCells, "Name", "string", "Desired", "integer",
		"Current", "integer", "Ready", "integer", "Age", "string",
		"Containers+", "string", "Images+", "string", "Selector+", "string")
}

func replicationControllerCells(obj api.Object, now time.Time) []any {
	rc := obj.(*corev1.ReplicationController)
	cells := []any{rc.Name, replicas(rc.Spec.Replicas), int64(rc.Status.Replicas), int64(rc.Status.ReadyReplicas),
		age(rc.CreationTimestamp, now)}
	spec := &corev1.PodSpec{}
	if rc.Spec.Template != nil {
		spec = &rc.Spec.Template.Spec
	}
	return append(cells, templateCells(spec, &metav1.LabelSelector{MatchLabels: rc.Spec.Selector})...)
}
