package events

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// Event types, as the API spells them.
const (
	Normal  = corev1.EventTypeNormal
	Warning = corev1.EventTypeWarning
)

// PodRef is the object of an event about pod, or about one of its
// containers when container is not empty (the field path `kubectl
// describe` shows: spec.containers{web}, spec.initContainers{setup}).
func PodRef(pod *corev1.Pod, container string) mqtt.EventObject {
	ref := mqtt.EventObject{Kind: mqtt.EventKindPod, Namespace: pod.Namespace, Name: pod.Name, UID: string(pod.UID)}
	if container == "" {
		return ref
	}
	ref.FieldPath = "spec.containers{" + container + "}"
	for _, c := range pod.Spec.InitContainers {
		if c.Name == container {
			ref.FieldPath = "spec.initContainers{" + container + "}"
		}
	}
	return ref
}

// NodeRef is the object of an event about the node itself. The kubelet
// names a Node's events with the node's name as its UID; so do we.
func NodeRef(node string) mqtt.EventObject {
	return mqtt.EventObject{Kind: mqtt.EventKindNode, Name: node, UID: node}
}
