package tables

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/api"
)

func init() { queuePrinters(volumesPrinters) }

func volumesPrinters() {
	register("PersistentVolume", pvCells, "Name", "string", "Capacity", "string", "Access Modes", "string",
		"Reclaim Policy", "string", "Status", "string", "Claim", "string", "StorageClass", "string",
		"VolumeAttributesClass", "string", "Reason", "string", "Age", "string", "VolumeMode+", "string")
	register("PersistentVolumeClaim", pvcCells, "Name", "string", "Status", "string", "Volume", "string",
		"Capacity", "string", "Access Modes", "string", "StorageClass", "string", "VolumeAttributesClass", "string",
		"Age", "string", "VolumeMode+", "string")
	register("PodTemplate", podTemplateCells, "Name", "string", "Containers", "string", "Images", "string",
		"Pod Labels", "string")
	for k, v := range map[string]string{
		"Capacity": "Storage capacity.", "Access Modes": "How the volume may be mounted (RWO, ROX, RWX, RWOP).",
		"Reclaim Policy": "What happens to the volume when its claim goes.", "Claim": "The claim bound to the volume.",
		"StorageClass": "The storage class.", "VolumeAttributesClass": "The volume attributes class.",
		"Reason": "Why the volume is in its phase.", "VolumeMode": "Filesystem or Block.", "Volume": "The volume bound to the claim.",
		"Pod Labels": "Labels of the template's pods.",
	} {
		columnHelp[k] = v
	}
}

func pvCells(obj api.Object, now time.Time) []any {
	pv := obj.(*corev1.PersistentVolume)
	claim := ""
	if r := pv.Spec.ClaimRef; r != nil {
		claim = r.Namespace + "/" + r.Name
	}
	capacity := ""
	if q, ok := pv.Spec.Capacity[corev1.ResourceStorage]; ok {
		capacity = q.String()
	}
	return []any{pv.Name, capacity, accessModes(pv.Spec.AccessModes), string(pv.Spec.PersistentVolumeReclaimPolicy),
		string(pv.Status.Phase), claim, pv.Spec.StorageClassName, orUnset(deref(pv.Spec.VolumeAttributesClassName)),
		pv.Status.Reason, age(pv.CreationTimestamp, now), volumeMode(pv.Spec.VolumeMode)}
}

func pvcCells(obj api.Object, now time.Time) []any {
	c := obj.(*corev1.PersistentVolumeClaim)
	capacity, modes := "", ""
	if c.Spec.VolumeName != "" {
		modes = accessModes(c.Status.AccessModes)
		if q, ok := c.Status.Capacity[corev1.ResourceStorage]; ok {
			capacity = q.String()
		}
	}
	phase := string(c.Status.Phase)
	if c.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	return []any{c.Name, phase, c.Spec.VolumeName, capacity, modes, deref(c.Spec.StorageClassName),
		orUnset(deref(c.Spec.VolumeAttributesClassName)), age(c.CreationTimestamp, now), volumeMode(c.Spec.VolumeMode)}
}

func podTemplateCells(obj api.Object, now time.Time) []any {
	t := obj.(*corev1.PodTemplate)
	names := make([]string, len(t.Template.Spec.Containers))
	images := make([]string, len(t.Template.Spec.Containers))
	for i, c := range t.Template.Spec.Containers {
		names[i], images[i] = c.Name, c.Image
	}
	return []any{t.Name, strings.Join(names, ","), strings.Join(images, ","), labels.FormatLabels(t.Template.Labels)}
}

// accessModes prints modes kubectl's short way, in upstream's order.
func accessModes(modes []corev1.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{{corev1.ReadWriteOnce, "RWO"}, {corev1.ReadOnlyMany, "ROX"}, {corev1.ReadWriteMany, "RWX"}, {corev1.ReadWriteOncePod, "RWOP"}} {
		for _, x := range modes {
			if x == m.mode {
				out = append(out, m.short)
				break
			}
		}
	}
	return strings.Join(out, ",")
}

func volumeMode(m *corev1.PersistentVolumeMode) string {
	if m == nil {
		return "<unset>"
	}
	return string(*m)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
