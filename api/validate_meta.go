package api

import (
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// metaValid says that apivalidation.ValidateObjectMetaAccessor would find
// nothing wrong with obj's metadata, for the metadata most creates carry
// (names, namespace, labels, owner references), without its regular
// expressions and field paths. false means only "ask it": metadata with
// annotations, finalizers or managed fields, a kind with a name rule of
// its own, or anything invalid is left to it, which gives the errors.
func metaValid(r *Resource, obj Object) bool {
	label := r.Kind == "Namespace"
	if !label {
		if k := rulesOf(obj); k != nil && k.Name != nil {
			return false
		}
	}
	validName := isDNS1123Subdomain
	if label {
		validName = isDNS1123Label
	}
	if gn := obj.GetGenerateName(); gn != "" && !validName(asName(gn, true)) {
		return false
	}
	if !validName(asName(obj.GetName(), false)) {
		return false
	}
	ns := obj.GetNamespace()
	if r.Namespaced != (ns != "") || ns != "" && !isDNS1123Label(asName(ns, false)) {
		return false
	}
	if obj.GetGeneration() < 0 || len(obj.GetAnnotations()) > 0 || len(obj.GetFinalizers()) > 0 ||
		len(obj.GetManagedFields()) > 0 {
		return false
	}
	for k, v := range obj.GetLabels() {
		if !isQualifiedName(k) || !isLabelValue(v) {
			return false
		}
	}
	return ownersValid(obj.GetOwnerReferences())
}

// ownersValid is apivalidation.ValidateOwnerReferences finding nothing:
// each reference complete and not to a banned kind, at most one of them
// the controller.
func ownersValid(refs []metav1.OwnerReference) bool {
	controllers := 0
	for i := range refs {
		ref := &refs[i]
		gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
		if gvk.Version == "" || gvk.Kind == "" || ref.Name == "" || ref.UID == "" {
			return false
		}
		if _, banned := apivalidation.BannedOwners[gvk]; banned {
			return false
		}
		if ref.Controller != nil && *ref.Controller {
			controllers++
		}
	}
	return controllers <= 1
}
