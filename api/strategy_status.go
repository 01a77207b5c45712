package api

import (
	corev1 "k8s.io/api/core/v1"
)

// prepareStatusTyped is PrepareForStatusUpdate for the kinds whose status
// is written most (a pod's by the node status monitor and the agents, a
// node's by its heartbeat): it copies only old's metadata and spec into
// obj, where the general path deep-copies the whole of old (its status
// too, only to drop it) and sets the fields by reflection. Neither kind
// has a Data, BinaryData, StringData, Immutable or Type field, so the
// result is the same. ok is false for every other kind.
func prepareStatusTyped(obj, old Object) (ok bool) {
	switch o := obj.(type) {
	case *corev1.Pod:
		prev, same := old.(*corev1.Pod)
		if !same {
			return false
		}
		rv := o.ResourceVersion
		prev.ObjectMeta.DeepCopyInto(&o.ObjectMeta)
		prev.Spec.DeepCopyInto(&o.Spec)
		o.ResourceVersion = rv
		return true
	case *corev1.Node:
		prev, same := old.(*corev1.Node)
		if !same {
			return false
		}
		rv := o.ResourceVersion
		prev.ObjectMeta.DeepCopyInto(&o.ObjectMeta)
		prev.Spec.DeepCopyInto(&o.Spec)
		o.ResourceVersion = rv
		return true
	}
	return false
}
