package api

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxParametersSize bounds a StorageClass's parameters, keys and values.
const maxParametersSize = 256 * 1024

// validateCSIName checks a CSI driver or provisioner name: a DNS subdomain
// of at most 63 characters, as upstream's ValidateCSIDriverName.
func validateCSIName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if len(name) > 63 {
		return field.ErrorList{field.TooLong(p, name, 63)}
	}
	return invalidEach(p, name, validation.IsDNS1123Subdomain(name))
}

func validateStorageClass(sc *storagev1.StorageClass) field.ErrorList {
	errs := validateProvisioner(sc.Provisioner)
	size := 0
	for k, v := range sc.Parameters {
		size += len(k) + len(v)
	}
	if size > maxParametersSize {
		errs = append(errs, field.TooLong(field.NewPath("parameters"), "", maxParametersSize))
	}
	if rp := sc.ReclaimPolicy; rp != nil {
		errs = append(errs, oneOf(*rp, []corev1.PersistentVolumeReclaimPolicy{
			corev1.PersistentVolumeReclaimDelete, corev1.PersistentVolumeReclaimRetain}, field.NewPath("reclaimPolicy"))...)
	}
	if m := sc.VolumeBindingMode; m != nil {
		errs = append(errs, oneOf(*m, []storagev1.VolumeBindingMode{
			storagev1.VolumeBindingImmediate, storagev1.VolumeBindingWaitForFirstConsumer}, field.NewPath("volumeBindingMode"))...)
	}
	for i, t := range sc.AllowedTopologies {
		if len(t.MatchLabelExpressions) == 0 {
			errs = append(errs, field.Required(field.NewPath("allowedTopologies").Index(i).Child("matchLabelExpressions"), ""))
		}
	}
	return errs
}

// validateProvisioner wants a qualified name ("rancher.io/local-path").
func validateProvisioner(name string) field.ErrorList {
	p := field.NewPath("provisioner")
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	return invalidEach(p, name, validation.IsQualifiedName(name))
}

func validateStorageClassUpdate(sc, old *storagev1.StorageClass) field.ErrorList {
	var errs field.ErrorList
	if sc.Provisioner != old.Provisioner {
		errs = append(errs, field.Forbidden(field.NewPath("provisioner"), "updates to provisioner are forbidden."))
	}
	errs = append(errs, immutableForbidden(sc.Parameters, old.Parameters, field.NewPath("parameters"), "updates to parameters are forbidden.")...)
	errs = append(errs, immutableForbidden(sc.ReclaimPolicy, old.ReclaimPolicy, field.NewPath("reclaimPolicy"), "updates to reclaimPolicy are forbidden.")...)
	return append(errs, immutable(sc.VolumeBindingMode, old.VolumeBindingMode, field.NewPath("volumeBindingMode"))...)
}

func immutableForbidden(now, was any, p *field.Path, msg string) field.ErrorList {
	if immutable(now, was, p) == nil {
		return nil
	}
	return field.ErrorList{field.Forbidden(p, msg)}
}

func validateCSIDriver(d *storagev1.CSIDriver) field.ErrorList {
	errs := validateCSIName(d.Name, field.NewPath("metadata", "name"))
	s := &d.Spec
	if s.AttachRequired == nil {
		errs = append(errs, field.Required(specPath.Child("attachRequired"), ""))
	}
	if s.FSGroupPolicy != nil {
		errs = append(errs, oneOf(*s.FSGroupPolicy, []storagev1.FSGroupPolicy{storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy,
			storagev1.FileFSGroupPolicy, storagev1.NoneFSGroupPolicy}, specPath.Child("fsGroupPolicy"))...)
	}
	for i, m := range s.VolumeLifecycleModes {
		errs = append(errs, oneOf(m, []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent,
			storagev1.VolumeLifecycleEphemeral}, specPath.Child("volumeLifecycleModes").Index(i))...)
	}
	for i, t := range s.TokenRequests {
		if t.ExpirationSeconds != nil && *t.ExpirationSeconds < 600 {
			errs = append(errs, field.Invalid(specPath.Child("tokenRequests").Index(i).Child("expirationSeconds"),
				*t.ExpirationSeconds, "may not specify a duration less than 10 minutes"))
		}
	}
	return errs
}

// validateCSIDriverUpdate: attachRequired and volumeLifecycleModes are
// immutable (fsGroupPolicy and podInfoOnMount are not, since 1.29).
func validateCSIDriverUpdate(d, old *storagev1.CSIDriver) field.ErrorList {
	errs := immutable(d.Spec.AttachRequired, old.Spec.AttachRequired, specPath.Child("attachRequired"))
	return append(errs, immutable(d.Spec.VolumeLifecycleModes, old.Spec.VolumeLifecycleModes, specPath.Child("volumeLifecycleModes"))...)
}

// validateCSINodeUpdate: a driver that stays keeps its node ID, topology
// keys and allocatable counts; drivers may come and go.
func validateCSINodeUpdate(n, old *storagev1.CSINode) field.ErrorList {
	var errs field.ErrorList
	for i, d := range n.Spec.Drivers {
		for _, was := range old.Spec.Drivers {
			if was.Name != d.Name {
				continue
			}
			p := specPath.Child("drivers").Index(i)
			errs = append(errs, immutable(d.NodeID, was.NodeID, p.Child("nodeID"))...)
			errs = append(errs, immutable(d.TopologyKeys, was.TopologyKeys, p.Child("topologyKeys"))...)
			errs = append(errs, immutable(d.Allocatable, was.Allocatable, p.Child("allocatable"))...)
		}
	}
	return errs
}

func validateCSINode(n *storagev1.CSINode) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, d := range n.Spec.Drivers {
		p := specPath.Child("drivers").Index(i)
		errs = append(errs, validateCSIName(d.Name, p.Child("name"))...)
		if seen.Has(d.Name) {
			errs = append(errs, field.Duplicate(p.Child("name"), d.Name))
		}
		seen.Insert(d.Name)
		if d.NodeID == "" {
			errs = append(errs, field.Required(p.Child("nodeID"), ""))
		} else if len(d.NodeID) > 192 {
			errs = append(errs, field.TooLong(p.Child("nodeID"), "", 192))
		}
		if a := d.Allocatable; a != nil {
			errs = append(errs, nonNegative(a.Count, p.Child("allocatable", "count"))...)
		}
	}
	return errs
}

func validateVolumeAttachment(va *storagev1.VolumeAttachment) field.ErrorList {
	s := &va.Spec
	errs := validateCSIName(s.Attacher, specPath.Child("attacher"))
	if s.NodeName == "" {
		errs = append(errs, field.Required(specPath.Child("nodeName"), ""))
	}
	src := specPath.Child("source")
	switch pv, inline := s.Source.PersistentVolumeName != nil, s.Source.InlineVolumeSpec != nil; {
	case pv && inline:
		errs = append(errs, field.Forbidden(src, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case !pv && !inline:
		errs = append(errs, field.Required(src, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case pv && *s.Source.PersistentVolumeName == "":
		errs = append(errs, field.Required(src.Child("persistentVolumeName"), "must specify non empty persistentVolumeName"))
	}
	return errs
}
