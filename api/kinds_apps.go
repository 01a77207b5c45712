package api

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// StatefulSets and ControllerRevisions are stored, defaulted and
// validated as upstream's apiserver does; controllers/statefulset acts on
// StatefulSets and keeps their (and DaemonSets') ControllerRevisions.
func init() {
	register(&Resource{Group: "apps", Version: "v1", Name: "statefulsets", Singular: "statefulset", Kind: "StatefulSet",
		Namespaced: true, ShortNames: []string{"sts"}, Categories: []string{"all"},
		Subresources: []string{"status", "scale"}, Generation: true,
		newObject: func() Object { return &appsv1.StatefulSet{} },
		newList:   func() runtime.Object { return &appsv1.StatefulSetList{} }},
		Rules{
			Default:  func(o Object) { defaultStatefulSet(o.(*appsv1.StatefulSet)) },
			Validate: func(o Object) field.ErrorList { return validateStatefulSet(o.(*appsv1.StatefulSet)) },
			ValidateUpdate: func(o, old Object) field.ErrorList {
				return validateStatefulSetUpdate(o.(*appsv1.StatefulSet), old.(*appsv1.StatefulSet))
			},
			ValidateStatus: func(o Object) field.ErrorList { return validateStatefulSetStatus(&o.(*appsv1.StatefulSet).Status) },
		})
	register(&Resource{Group: "apps", Version: "v1", Name: "controllerrevisions", Singular: "controllerrevision",
		Kind: "ControllerRevision", Namespaced: true,
		newObject: func() Object { return &appsv1.ControllerRevision{} },
		newList:   func() runtime.Object { return &appsv1.ControllerRevisionList{} }},
		Rules{
			Validate: func(o Object) field.ErrorList { return validateControllerRevision(o.(*appsv1.ControllerRevision)) },
			ValidateUpdate: func(o, old Object) field.ErrorList {
				return immutable(o.(*appsv1.ControllerRevision).Data, old.(*appsv1.ControllerRevision).Data, field.NewPath("data"))
			},
		})
}

// defaultStatefulSet sets upstream's apps/v1 defaults.
func defaultStatefulSet(ss *appsv1.StatefulSet) {
	s := &ss.Spec
	if s.Replicas == nil {
		s.Replicas = ptrTo(int32(1))
	}
	if s.PodManagementPolicy == "" {
		s.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	defaultStatefulSetStrategy(&s.UpdateStrategy)
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptrTo(int32(10))
	}
	if s.PersistentVolumeClaimRetentionPolicy == nil {
		s.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	rp := s.PersistentVolumeClaimRetentionPolicy
	if rp.WhenDeleted == "" {
		rp.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if rp.WhenScaled == "" {
		rp.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	for i := range s.VolumeClaimTemplates {
		if vc := &s.VolumeClaimTemplates[i].Spec; vc.VolumeMode == nil {
			vc.VolumeMode = ptrTo(corev1.PersistentVolumeFilesystem)
		}
	}
	defaultPodSpec(&s.Template.Spec)
}

func defaultStatefulSetStrategy(u *appsv1.StatefulSetUpdateStrategy) {
	if u.Type == "" {
		u.Type = appsv1.RollingUpdateStatefulSetStrategyType
	}
	if u.Type != appsv1.RollingUpdateStatefulSetStrategyType {
		return
	}
	if u.RollingUpdate == nil {
		u.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
	}
	if u.RollingUpdate.Partition == nil {
		u.RollingUpdate.Partition = ptrTo(int32(0))
	}
}

func validateControllerRevision(cr *appsv1.ControllerRevision) field.ErrorList {
	var errs field.ErrorList
	if cr.Data.Raw == nil && cr.Data.Object == nil {
		errs = append(errs, field.Required(field.NewPath("data"), "data is mandatory"))
	}
	if cr.Revision < 0 {
		errs = append(errs, field.Invalid(field.NewPath("revision"), cr.Revision, "must be greater than or equal to 0"))
	}
	return errs
}
