package api

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// storage.k8s.io kinds: stored, defaulted and validated as upstream does.
func init() {
	register(&Resource{Group: "storage.k8s.io", Version: "v1", Name: "storageclasses", Singular: "storageclass",
		Kind: "StorageClass", ShortNames: []string{"sc"},
		newObject: func() Object { return &storagev1.StorageClass{} },
		newList:   func() runtime.Object { return &storagev1.StorageClassList{} }},
		Rules{
			Default:  func(o Object) { defaultStorageClass(o.(*storagev1.StorageClass)) },
			Validate: func(o Object) field.ErrorList { return validateStorageClass(o.(*storagev1.StorageClass)) },
			ValidateUpdate: func(o, old Object) field.ErrorList {
				return validateStorageClassUpdate(o.(*storagev1.StorageClass), old.(*storagev1.StorageClass))
			},
		})
	register(&Resource{Group: "storage.k8s.io", Version: "v1", Name: "csidrivers", Singular: "csidriver", Kind: "CSIDriver",
		StoredOnly: "CSI drivers are not called yet",
		newObject:  func() Object { return &storagev1.CSIDriver{} },
		newList:    func() runtime.Object { return &storagev1.CSIDriverList{} }},
		Rules{
			Default:  func(o Object) { defaultCSIDriver(o.(*storagev1.CSIDriver)) },
			Validate: func(o Object) field.ErrorList { return validateCSIDriver(o.(*storagev1.CSIDriver)) },
			ValidateUpdate: func(o, old Object) field.ErrorList {
				return validateCSIDriverUpdate(o.(*storagev1.CSIDriver), old.(*storagev1.CSIDriver))
			},
		})
}

// CSINodes and VolumeAttachments, which agents and attachers write.
func init() {
	register(&Resource{Group: "storage.k8s.io", Version: "v1", Name: "csinodes", Singular: "csinode", Kind: "CSINode",
		newObject: func() Object { return &storagev1.CSINode{} },
		newList:   func() runtime.Object { return &storagev1.CSINodeList{} }},
		Rules{
			Validate: func(o Object) field.ErrorList { return validateCSINode(o.(*storagev1.CSINode)) },
			ValidateUpdate: func(o, old Object) field.ErrorList {
				return validateCSINodeUpdate(o.(*storagev1.CSINode), old.(*storagev1.CSINode))
			},
		})
	register(&Resource{Group: "storage.k8s.io", Version: "v1", Name: "volumeattachments", Singular: "volumeattachment",
		Kind: "VolumeAttachment", Subresources: []string{"status"},
		StoredOnly: "no attach/detach controller yet: volumes are not attached",
		newObject:  func() Object { return &storagev1.VolumeAttachment{} },
		newList:    func() runtime.Object { return &storagev1.VolumeAttachmentList{} }},
		Rules{
			Validate: func(o Object) field.ErrorList { return validateVolumeAttachment(o.(*storagev1.VolumeAttachment)) },
			ValidateUpdate: func(o, old Object) field.ErrorList {
				return immutable(o.(*storagev1.VolumeAttachment).Spec, old.(*storagev1.VolumeAttachment).Spec, specPath)
			},
		})
}

// AnnotationDefaultStorageClass marks the StorageClass claims without a
// class get.
const AnnotationDefaultStorageClass = "storageclass.kubernetes.io/is-default-class"

// IsDefaultStorageClass reports whether sc carries the default annotation.
func IsDefaultStorageClass(sc *storagev1.StorageClass) bool {
	return sc.Annotations[AnnotationDefaultStorageClass] == "true"
}

// DefaultStorageClass picks the class a claim without one gets: of those
// marked default, the newest (then the first by name), as upstream's
// admission does since 1.28 when several are marked; nil when none is.
func DefaultStorageClass(classes []*storagev1.StorageClass) *storagev1.StorageClass {
	var best *storagev1.StorageClass
	for _, sc := range classes {
		if !IsDefaultStorageClass(sc) {
			continue
		}
		if best == nil || sc.CreationTimestamp.After(best.CreationTimestamp.Time) ||
			sc.CreationTimestamp.Equal(&best.CreationTimestamp) && sc.Name < best.Name {
			best = sc
		}
	}
	return best
}

func defaultStorageClass(sc *storagev1.StorageClass) {
	if sc.ReclaimPolicy == nil {
		sc.ReclaimPolicy = ptrTo(corev1.PersistentVolumeReclaimDelete)
	}
	if sc.VolumeBindingMode == nil {
		sc.VolumeBindingMode = ptrTo(storagev1.VolumeBindingImmediate)
	}
}

func defaultCSIDriver(d *storagev1.CSIDriver) {
	s := &d.Spec
	if s.AttachRequired == nil {
		s.AttachRequired = ptrTo(true)
	}
	for _, b := range []**bool{&s.PodInfoOnMount, &s.StorageCapacity, &s.RequiresRepublish, &s.SELinuxMount} {
		if *b == nil {
			*b = ptrTo(false)
		}
	}
	if s.FSGroupPolicy == nil {
		s.FSGroupPolicy = ptrTo(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)
	}
	if len(s.VolumeLifecycleModes) == 0 {
		s.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent}
	}
}
