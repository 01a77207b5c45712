package api

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func init() {
	register(&Resource{Version: "v1", Name: "podtemplates", Singular: "podtemplate", Kind: "PodTemplate",
		Namespaced: true,
		newObject:  func() Object { return &corev1.PodTemplate{} },
		newList:    func() runtime.Object { return &corev1.PodTemplateList{} }},
		Rules{
			Default:  func(o Object) { defaultPodSpec(&o.(*corev1.PodTemplate).Template.Spec) },
			Validate: func(o Object) field.ErrorList { return validatePodTemplate(o.(*corev1.PodTemplate)) },
		})
	register(&Resource{Version: "v1", Name: "persistentvolumes", Singular: "persistentvolume", Kind: "PersistentVolume",
		ShortNames: []string{"pv"}, Subresources: []string{"status"},
		newObject: func() Object { return &corev1.PersistentVolume{} },
		newList:   func() runtime.Object { return &corev1.PersistentVolumeList{} }},
		Rules{
			Default:       func(o Object) { defaultPV(o.(*corev1.PersistentVolume)) },
			PrepareCreate: func(o Object) { o.(*corev1.PersistentVolume).Status.Phase = corev1.VolumePending },
			Validate:      func(o Object) field.ErrorList { return validatePV(o.(*corev1.PersistentVolume)) },
		})
	register(&Resource{Version: "v1", Name: "persistentvolumeclaims", Singular: "persistentvolumeclaim",
		Kind: "PersistentVolumeClaim", Namespaced: true, ShortNames: []string{"pvc"}, Subresources: []string{"status"},
		newObject: func() Object { return &corev1.PersistentVolumeClaim{} },
		newList:   func() runtime.Object { return &corev1.PersistentVolumeClaimList{} }},
		Rules{
			Default:       func(o Object) { defaultPVC(o.(*corev1.PersistentVolumeClaim)) },
			PrepareCreate: func(o Object) { o.(*corev1.PersistentVolumeClaim).Status.Phase = corev1.ClaimPending },
			Validate:      func(o Object) field.ErrorList { return validatePVC(o.(*corev1.PersistentVolumeClaim)) },
			ValidateUpdate: func(o, old Object) field.ErrorList {
				return validatePVCUpdate(o.(*corev1.PersistentVolumeClaim), old.(*corev1.PersistentVolumeClaim))
			},
		})
}

func defaultPV(pv *corev1.PersistentVolume) {
	if pv.Spec.PersistentVolumeReclaimPolicy == "" {
		pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
	}
	if pv.Spec.VolumeMode == nil {
		pv.Spec.VolumeMode = ptrTo(corev1.PersistentVolumeFilesystem)
	}
}

func defaultPVC(c *corev1.PersistentVolumeClaim) {
	if c.Spec.VolumeMode == nil {
		c.Spec.VolumeMode = ptrTo(corev1.PersistentVolumeFilesystem)
	}
}

var (
	accessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany, corev1.ReadWriteMany,
		corev1.ReadWriteOnce, corev1.ReadWriteOncePod}
	reclaimPolicies = []corev1.PersistentVolumeReclaimPolicy{corev1.PersistentVolumeReclaimDelete,
		corev1.PersistentVolumeReclaimRecycle, corev1.PersistentVolumeReclaimRetain}
	volumeModes = []corev1.PersistentVolumeMode{corev1.PersistentVolumeBlock, corev1.PersistentVolumeFilesystem}
)

func validatePV(pv *corev1.PersistentVolume) field.ErrorList {
	sp := &pv.Spec
	errs := validateAccessModes(sp.AccessModes, specPath.Child("accessModes"))
	q, ok := sp.Capacity[corev1.ResourceStorage]
	if !ok || len(sp.Capacity) != 1 {
		errs = append(errs, field.Required(specPath.Child("capacity"), "must contain exactly one resource, storage"))
	} else {
		errs = append(errs, validateQuantity(q, specPath.Child("capacity").Key(string(corev1.ResourceStorage)))...)
	}
	errs = append(errs, oneOf(sp.PersistentVolumeReclaimPolicy, reclaimPolicies, specPath.Child("persistentVolumeReclaimPolicy"))...)
	if sp.VolumeMode != nil {
		errs = append(errs, oneOf(*sp.VolumeMode, volumeModes, specPath.Child("volumeMode"))...)
	}
	if n := volumeSources(&sp.PersistentVolumeSource); n != 1 {
		errs = append(errs, field.Invalid(specPath, n, "must specify exactly one volume type"))
	}
	if sp.HostPath != nil && sp.HostPath.Path == "" {
		errs = append(errs, field.Required(specPath.Child("hostPath", "path"), ""))
	}
	if sp.Local != nil && sp.NodeAffinity == nil {
		errs = append(errs, field.Required(specPath.Child("nodeAffinity"), "Local volumes require node affinity"))
	}
	if sp.StorageClassName != "" {
		errs = append(errs, invalidEach(specPath.Child("storageClassName"), sp.StorageClassName,
			apivalidation.NameIsDNSSubdomain(sp.StorageClassName, false))...)
	}
	return errs
}

// volumeSources counts the volume types set in s.
func volumeSources(s *corev1.PersistentVolumeSource) int {
	v, n := reflect.ValueOf(s).Elem(), 0
	for i := 0; i < v.NumField(); i++ {
		if !v.Field(i).IsNil() {
			n++
		}
	}
	return n
}

func validateAccessModes(modes []corev1.PersistentVolumeAccessMode, p *field.Path) field.ErrorList {
	if len(modes) == 0 {
		return field.ErrorList{field.Required(p, "at least 1 access mode is required")}
	}
	var errs field.ErrorList
	for i, m := range modes {
		errs = append(errs, oneOf(m, accessModes, p.Index(i))...)
	}
	if len(modes) > 1 && contains(modes, corev1.ReadWriteOncePod) {
		errs = append(errs, field.Forbidden(p, "may not use ReadWriteOncePod with other access modes"))
	}
	return errs
}

func validatePVC(c *corev1.PersistentVolumeClaim) field.ErrorList {
	sp := &c.Spec
	errs := validateAccessModes(sp.AccessModes, specPath.Child("accessModes"))
	rp := specPath.Child("resources", "requests").Key(string(corev1.ResourceStorage))
	if q, ok := sp.Resources.Requests[corev1.ResourceStorage]; !ok {
		errs = append(errs, field.Required(rp, ""))
	} else if q.Sign() <= 0 {
		errs = append(errs, field.Invalid(rp, q.String(), "must be greater than zero"))
	}
	if sp.VolumeMode != nil {
		errs = append(errs, oneOf(*sp.VolumeMode, volumeModes, specPath.Child("volumeMode"))...)
	}
	if sp.StorageClassName != nil && *sp.StorageClassName != "" {
		errs = append(errs, invalidEach(specPath.Child("storageClassName"), *sp.StorageClassName,
			apivalidation.NameIsDNSSubdomain(*sp.StorageClassName, false))...)
	}
	return errs
}

// validatePVCUpdate: a claim's spec is immutable but for its storage
// request and, while empty, the volume it binds to.
func validatePVCUpdate(c, old *corev1.PersistentVolumeClaim) field.ErrorList {
	now, was := c.Spec.DeepCopy(), old.Spec.DeepCopy()
	now.Resources.Requests, was.Resources.Requests = nil, nil
	now.VolumeAttributesClassName, was.VolumeAttributesClassName = nil, nil
	if was.VolumeName == "" {
		was.VolumeName = now.VolumeName
	}
	if !reflect.DeepEqual(now, was) {
		return field.ErrorList{field.Forbidden(specPath,
			"spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims")}
	}
	return nil
}

// validatePodTemplate checks the template as a workload's would be.
func validatePodTemplate(t *corev1.PodTemplate) field.ErrorList {
	tp := field.NewPath("template")
	errs := metav1validation.ValidateLabels(t.Template.Labels, tp.Child("metadata", "labels"))
	return append(errs, validatePodSpec(&t.Template.Spec, tp.Child("spec"))...)
}
