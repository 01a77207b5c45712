package api

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateStatefulSet follows upstream's ValidateStatefulSetSpec.
func validateStatefulSet(ss *appsv1.StatefulSet) field.ErrorList {
	s := &ss.Spec
	errs := validateSelectedTemplate("statefulset", s.Selector, templateWithClaims(s), onlyAlways)
	errs = append(errs, oneOf(s.PodManagementPolicy, []appsv1.PodManagementPolicyType{
		appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement}, specPath.Child("podManagementPolicy"))...)
	errs = append(errs, validateStatefulSetStrategy(&s.UpdateStrategy, specPath.Child("updateStrategy"))...)
	if rp := s.PersistentVolumeClaimRetentionPolicy; rp != nil {
		p := specPath.Child("persistentVolumeClaimRetentionPolicy")
		kinds := []appsv1.PersistentVolumeClaimRetentionPolicyType{
			appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType}
		errs = append(errs, oneOf(rp.WhenDeleted, kinds, p.Child("whenDeleted"))...)
		errs = append(errs, oneOf(rp.WhenScaled, kinds, p.Child("whenScaled"))...)
	}
	errs = append(errs, nonNegative(s.Replicas, specPath.Child("replicas"))...)
	errs = append(errs, nonNegative(&s.MinReadySeconds, specPath.Child("minReadySeconds"))...)
	errs = append(errs, nonNegative(s.RevisionHistoryLimit, specPath.Child("revisionHistoryLimit"))...)
	if s.Ordinals != nil {
		errs = append(errs, nonNegative(&s.Ordinals.Start, specPath.Child("ordinals", "start"))...)
	}
	if s.Template.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(specPath.Child("template", "spec", "activeDeadlineSeconds"),
			"activeDeadlineSeconds in StatefulSet is not Supported"))
	}
	return append(errs, validateClaimTemplates(s.VolumeClaimTemplates, specPath.Child("volumeClaimTemplates"))...)
}

// templateWithClaims is the pod template as the StatefulSet's pods will
// have it: each volume claim template is a volume of the pod (a claim of
// the same name), so containers may mount it.
func templateWithClaims(s *appsv1.StatefulSetSpec) *corev1.PodTemplateSpec {
	if len(s.VolumeClaimTemplates) == 0 {
		return &s.Template
	}
	t := s.Template.DeepCopy()
	for _, c := range s.VolumeClaimTemplates {
		t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: c.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.Name}}})
	}
	return t
}

func validateStatefulSetStrategy(u *appsv1.StatefulSetUpdateStrategy, p *field.Path) field.ErrorList {
	switch u.Type {
	case appsv1.OnDeleteStatefulSetStrategyType:
		if u.RollingUpdate != nil {
			return field.ErrorList{field.Invalid(p.Child("rollingUpdate"), u.RollingUpdate,
				"only allowed for updateStrategy '"+string(appsv1.RollingUpdateStatefulSetStrategyType)+"'")}
		}
		return nil
	case appsv1.RollingUpdateStatefulSetStrategyType:
		ru := u.RollingUpdate
		if ru == nil {
			return nil
		}
		errs := nonNegative(ru.Partition, p.Child("rollingUpdate", "partition"))
		if ru.MaxUnavailable != nil {
			mp := p.Child("rollingUpdate", "maxUnavailable")
			errs = append(errs, validateIntOrPercent(ru.MaxUnavailable, mp)...)
			if isZero(ru.MaxUnavailable) {
				errs = append(errs, field.Invalid(mp, ru.MaxUnavailable.String(), "cannot be 0"))
			}
		}
		return errs
	case "":
		return field.ErrorList{field.Required(p.Child("type"), "")}
	}
	return field.ErrorList{field.NotSupported(p.Child("type"), u.Type, []string{
		string(appsv1.RollingUpdateStatefulSetStrategyType), string(appsv1.OnDeleteStatefulSetStrategyType)})}
}

// validateClaimTemplates checks the PVC templates: a name, at least one
// access mode and a storage request, as a PersistentVolumeClaim needs.
func validateClaimTemplates(list []corev1.PersistentVolumeClaim, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i := range list {
		c, ip := &list[i], p.Index(i)
		errs = append(errs, apivalidation.ValidateObjectMeta(&c.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, ip.Child("metadata"))...)
		if names.Has(c.Name) {
			errs = append(errs, field.Duplicate(ip.Child("metadata", "name"), c.Name))
		}
		names.Insert(c.Name)
		if len(c.Spec.AccessModes) == 0 && c.Spec.DataSourceRef == nil {
			errs = append(errs, field.Required(ip.Child("spec", "accessModes"), "at least 1 access mode is required"))
		}
		if q, ok := c.Spec.Resources.Requests[corev1.ResourceStorage]; !ok {
			errs = append(errs, field.Required(ip.Child("spec", "resources", "requests", "storage"), ""))
		} else {
			errs = append(errs, validateQuantity(q, ip.Child("spec", "resources", "requests", "storage"))...)
		}
	}
	return errs
}

// validateStatefulSetUpdate allows changes only to the fields upstream
// lets change, and never to the selector.
func validateStatefulSetUpdate(ss, old *appsv1.StatefulSet) field.ErrorList {
	errs := immutableSelector(ss.Spec.Selector, old.Spec.Selector)
	was := old.Spec.DeepCopy()
	was.Replicas, was.Ordinals, was.Template = ss.Spec.Replicas, ss.Spec.Ordinals, ss.Spec.Template
	was.UpdateStrategy, was.MinReadySeconds = ss.Spec.UpdateStrategy, ss.Spec.MinReadySeconds
	was.PersistentVolumeClaimRetentionPolicy, was.Selector = ss.Spec.PersistentVolumeClaimRetentionPolicy, ss.Spec.Selector
	if !equality.Semantic.DeepEqual(was, &ss.Spec) {
		errs = append(errs, field.Forbidden(specPath, "updates to statefulset spec for fields other than 'replicas', "+
			"'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"))
	}
	return errs
}

func validateStatefulSetStatus(s *appsv1.StatefulSetStatus) field.ErrorList {
	sp := field.NewPath("status")
	var errs field.ErrorList
	for _, c := range []struct {
		v    int32
		name string
	}{{s.Replicas, "replicas"}, {s.ReadyReplicas, "readyReplicas"}, {s.CurrentReplicas, "currentReplicas"},
		{s.UpdatedReplicas, "updatedReplicas"}, {s.AvailableReplicas, "availableReplicas"}} {
		errs = append(errs, nonNegative(&c.v, sp.Child(c.name))...)
	}
	if s.ReadyReplicas > s.Replicas {
		errs = append(errs, field.Invalid(sp.Child("readyReplicas"), s.ReadyReplicas, "cannot be greater than status.replicas"))
	}
	return errs
}
