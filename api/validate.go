package api

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateCreate checks a new object the way a real apiserver would and
// returns every problem with its field path ("spec.containers[0].image:
// Required value"). Call it after PrepareForCreate, with metadata.namespace
// (for namespaced kinds) and metadata.uid already set by the server.
func ValidateCreate(r *Resource, obj Object) field.ErrorList {
	errs := validateMeta(r, obj)
	if p, ok := obj.(*corev1.Pod); ok {
		errs = append(errs, ephemeralOnCreate(&p.Spec)...)
	}
	return append(errs, validateKind(obj)...)
}

// ValidateUpdate checks an update against the stored object: the new object
// must be valid, and fields that cannot change (name, namespace, uid, most of
// a Pod's spec, workload selectors, a Job's template, immutable ConfigMaps
// and Secrets) must not have. Call it after PrepareForUpdate, with
// metadata.resourceVersion set (for an unconditional update, to the stored
// object's): an update without one is invalid.
func ValidateUpdate(r *Resource, obj, old Object) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaAccessorUpdate(obj, old, metadataPath)
	errs = append(errs, validateKind(obj)...)
	return append(errs, validateKindUpdate(obj, old)...)
}

// ValidateStatusUpdate checks a write to the status subresource. Call it
// after PrepareForStatusUpdate.
func ValidateStatusUpdate(r *Resource, obj, old Object) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaAccessorUpdate(obj, old, metadataPath)
	return append(errs, validateStatus(obj)...)
}

// nameFunc is the rule for metadata.name (and generateName) of each kind;
// obj is one of r's objects, whose type names the rules (r.New() would
// make another only to ask its type).
func nameFunc(r *Resource, obj Object) apivalidation.ValidateNameFunc {
	if r.Kind == "Namespace" {
		return apivalidation.NameIsDNSLabel
	}
	if k := rulesOf(obj); k != nil && k.Name != nil {
		return k.Name
	}
	return apivalidation.NameIsDNSSubdomain
}

func validateMeta(r *Resource, obj Object) field.ErrorList {
	if metaValid(r, obj) {
		return nil
	}
	return apivalidation.ValidateObjectMetaAccessor(obj, r.Namespaced, nameFunc(r, obj), metadataPath)
}

var metadataPath = field.NewPath("metadata")

func validateKind(obj Object) field.ErrorList {
	switch o := obj.(type) {
	case *corev1.Pod:
		return validatePod(o)
	case *corev1.Namespace:
		return validateNamespace(o)
	case *corev1.Node:
		return validateNode(o)
	case *corev1.ConfigMap:
		return validateConfigMap(o)
	case *corev1.Secret:
		return validateSecret(o)
	case *corev1.Event:
		return validateEvent(o)
	case *appsv1.Deployment:
		return validateDeployment(o)
	case *appsv1.ReplicaSet:
		return validateReplicaSet(o)
	case *appsv1.DaemonSet:
		return validateDaemonSet(o)
	case *batchv1.Job:
		return validateJob(o)
	case *coordinationv1.Lease:
		return validateLease(o)
	}
	if k := rulesOf(obj); k != nil && k.Validate != nil {
		return k.Validate(obj)
	}
	return nil
}

func validateKindUpdate(obj, old Object) field.ErrorList {
	switch o := obj.(type) {
	case *corev1.Pod:
		return validatePodUpdate(o, old.(*corev1.Pod))
	case *corev1.ConfigMap:
		p := old.(*corev1.ConfigMap)
		return validateImmutableData(o.Immutable, p.Immutable, o.Data, p.Data, o.BinaryData, p.BinaryData)
	case *corev1.Secret:
		return validateSecretUpdate(o, old.(*corev1.Secret))
	case *appsv1.Deployment:
		return immutableSelector(o.Spec.Selector, old.(*appsv1.Deployment).Spec.Selector)
	case *appsv1.ReplicaSet:
		return immutableSelector(o.Spec.Selector, old.(*appsv1.ReplicaSet).Spec.Selector)
	case *appsv1.DaemonSet:
		return immutableSelector(o.Spec.Selector, old.(*appsv1.DaemonSet).Spec.Selector)
	case *batchv1.Job:
		return validateJobUpdate(o, old.(*batchv1.Job))
	}
	if k := rulesOf(obj); k != nil && k.ValidateUpdate != nil {
		return k.ValidateUpdate(obj, old)
	}
	return nil
}

var specPath = field.NewPath("spec")

// immutable reports a change of a field that may not change.
func immutable(newVal, oldVal any, p *field.Path) field.ErrorList {
	if equality.Semantic.DeepEqual(newVal, oldVal) {
		return nil
	}
	return field.ErrorList{field.Invalid(p, newVal, "field is immutable")}
}

// immutableSelector reports a changed spec.selector, printed as a selector.
func immutableSelector(now, was *metav1.LabelSelector) field.ErrorList {
	if equality.Semantic.DeepEqual(now, was) {
		return nil
	}
	return field.ErrorList{field.Invalid(specPath.Child("selector"), metav1.FormatLabelSelector(now), "field is immutable")}
}

// nonNegative checks an optional count.
func nonNegative(v *int32, p *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	return apivalidation.ValidateNonnegativeField(int64(*v), p)
}

// positive checks an optional value that must be above zero.
func positive(v *int64, p *field.Path) field.ErrorList {
	if v == nil || *v > 0 {
		return nil
	}
	return field.ErrorList{field.Invalid(p, *v, "must be greater than 0")}
}

// invalidEach turns the messages of an Is* check into errors at p.
func invalidEach(p *field.Path, value any, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(p, value, m))
	}
	return errs
}

func hasSpace(s string) bool {
	return strings.ContainsAny(s, " \t\r\n\v\f")
}
