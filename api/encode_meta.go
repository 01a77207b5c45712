package api

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// typeMeta opens an object with its inlined kind and apiVersion, both
// omitempty.
func (e *encoder) typeMeta(kind, apiVersion string) {
	e.b = append(e.b, '{')
	e.strOmit("kind", kind)
	e.strOmit("apiVersion", apiVersion)
}

func (e *encoder) objectMeta(m *metav1.ObjectMeta) {
	e.strOmit("name", m.Name)
	e.strOmit("generateName", m.GenerateName)
	e.strOmit("namespace", m.Namespace)
	//lint:ignore SA1019 deprecated, yet a stored object may still carry it, and encoding/json writes it.
	e.strOmit("selfLink", m.SelfLink)
	e.strOmit("uid", string(m.UID))
	e.strOmit("resourceVersion", m.ResourceVersion)
	e.intOmit("generation", m.Generation)
	e.time("creationTimestamp", m.CreationTimestamp)
	e.timePtr("deletionTimestamp", m.DeletionTimestamp)
	e.int64Ptr("deletionGracePeriodSeconds", m.DeletionGracePeriodSeconds)
	e.stringMap("labels", m.Labels)
	e.stringMap("annotations", m.Annotations)
	objectList(e, "ownerReferences", m.OwnerReferences, (*encoder).ownerReference)
	e.strings("finalizers", m.Finalizers)
	fallbackSlice(e, "managedFields", m.ManagedFields)
}

func (e *encoder) ownerReference(r *metav1.OwnerReference) {
	e.str("apiVersion", r.APIVersion)
	e.str("kind", r.Kind)
	e.str("name", r.Name)
	e.str("uid", string(r.UID))
	e.boolPtr("controller", r.Controller)
	e.boolPtr("blockOwnerDeletion", r.BlockOwnerDeletion)
}

func (e *encoder) objectReference(r *corev1.ObjectReference) {
	e.strOmit("kind", r.Kind)
	e.strOmit("namespace", r.Namespace)
	e.strOmit("name", r.Name)
	e.strOmit("uid", string(r.UID))
	e.strOmit("apiVersion", r.APIVersion)
	e.strOmit("resourceVersion", r.ResourceVersion)
	e.strOmit("fieldPath", r.FieldPath)
}
