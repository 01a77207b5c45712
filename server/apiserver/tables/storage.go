package tables

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/bramble-edge/bramble/api"
)

func init() { queuePrinters(storagePrinters) }

func storagePrinters() {
	register("StorageClass", storageClassCells, "Name", "string", "Provisioner", "string", "ReclaimPolicy", "string",
		"VolumeBindingMode", "string", "AllowVolumeExpansion", "string", "Age", "string")
	register("CSIDriver", csiDriverCells, "Name", "string", "AttachRequired", "boolean", "PodInfoOnMount", "boolean",
		"StorageCapacity", "boolean", "TokenRequests", "string", "RequiresRepublish", "boolean", "Modes", "string", "Age", "string")
	register("CSINode", csiNodeCells, "Name", "string", "Drivers", "integer", "Age", "string")
	register("VolumeAttachment", volumeAttachmentCells, "Name", "string", "Attacher", "string", "PV", "string",
		"Node", "string", "Attached", "boolean", "Age", "string")
}

// betaDefaultClass is the annotation's older name, which kubectl honours too.
const betaDefaultClass = "storageclass.beta.kubernetes.io/is-default-class"

func storageClassCells(obj api.Object, now time.Time) []any {
	sc := obj.(*storagev1.StorageClass)
	name := sc.Name
	if api.IsDefaultStorageClass(sc) || sc.Annotations[betaDefaultClass] == "true" {
		name += " (default)"
	}
	reclaim, binding := string(corev1.PersistentVolumeReclaimDelete), string(storagev1.VolumeBindingImmediate)
	if sc.ReclaimPolicy != nil {
		reclaim = string(*sc.ReclaimPolicy)
	}
	if sc.VolumeBindingMode != nil {
		binding = string(*sc.VolumeBindingMode)
	}
	expand := sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
	return []any{name, sc.Provisioner, reclaim, binding, expand, age(sc.CreationTimestamp, now)}
}

func boolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

func csiDriverCells(obj api.Object, now time.Time) []any {
	d := obj.(*storagev1.CSIDriver)
	s := &d.Spec
	tokens := "<unset>"
	if len(s.TokenRequests) > 0 {
		var auds []string
		for _, t := range s.TokenRequests {
			auds = append(auds, t.Audience)
		}
		tokens = strings.Join(auds, ",")
	}
	var modes []string
	for _, m := range s.VolumeLifecycleModes {
		modes = append(modes, string(m))
	}
	return []any{d.Name, boolOr(s.AttachRequired, true), boolOr(s.PodInfoOnMount, false), boolOr(s.StorageCapacity, false),
		tokens, boolOr(s.RequiresRepublish, false), orNone(strings.Join(modes, ",")), age(d.CreationTimestamp, now)}
}

func csiNodeCells(obj api.Object, now time.Time) []any {
	n := obj.(*storagev1.CSINode)
	return []any{n.Name, int64(len(n.Spec.Drivers)), age(n.CreationTimestamp, now)}
}

func volumeAttachmentCells(obj api.Object, now time.Time) []any {
	va := obj.(*storagev1.VolumeAttachment)
	pv := ""
	if va.Spec.Source.PersistentVolumeName != nil {
		pv = *va.Spec.Source.PersistentVolumeName
	}
	return []any{va.Name, va.Spec.Attacher, pv, va.Spec.NodeName, va.Status.Attached, age(va.CreationTimestamp, now)}
}
