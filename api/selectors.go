package api

import (
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// ParseLabelSelector parses a labelSelector query value with the full
// grammar (k=v, k==v, k!=v, k, !k, k in (a,b), k notin (a,b), and the
// numeric k>1 and k<1). An empty string selects everything.
func ParseLabelSelector(s string) (labels.Selector, error) {
	sel, err := labels.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("invalid labelSelector %q: %w", s, err)
	}
	return sel, nil
}

// ParseFieldSelector parses a fieldSelector query value (k=v, k==v, k!=v,
// comma separated) and checks that r supports each field. An empty string
// selects everything.
func ParseFieldSelector(r *Resource, s string) (fields.Selector, error) {
	sel, err := fields.ParseSelector(s)
	if err != nil {
		return nil, fmt.Errorf("invalid fieldSelector %q: %w", s, err)
	}
	known := FieldSet(r, r.New())
	for _, req := range sel.Requirements() {
		if _, ok := known[req.Field]; !ok {
			return nil, fmt.Errorf("invalid fieldSelector %q: field label not supported: %s", s, req.Field)
		}
	}
	return sel, nil
}

// FieldSet returns the fields of obj that field selectors can match:
// metadata.name and metadata.namespace for every kind plus the kind's own
// (the same set the real apiserver supports for these kinds). Unset fields
// are present with the value "".
func FieldSet(r *Resource, obj Object) fields.Set {
	set := fields.Set{"metadata.name": obj.GetName()}
	if r.Namespaced {
		set["metadata.namespace"] = obj.GetNamespace()
	} else {
		set["metadata.namespace"] = ""
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		addPodFields(set, o)
	case *corev1.Event:
		addEventFields(set, o)
	case *corev1.Secret:
		set["type"] = string(o.Type)
	case *corev1.Node:
		set["spec.unschedulable"] = strconv.FormatBool(o.Spec.Unschedulable)
	case *corev1.Namespace:
		set["status.phase"] = string(o.Status.Phase)
	case *appsv1.ReplicaSet:
		set["status.replicas"] = strconv.Itoa(int(o.Status.Replicas))
	case *batchv1.Job:
		set["status.successful"] = strconv.Itoa(int(o.Status.Succeeded))
	default:
		r.custom.addFields(obj, set)
		if k := rulesOf(obj); k != nil && k.Fields != nil {
			k.Fields(obj, set)
		}
	}
	return set
}

func addPodFields(set fields.Set, p *corev1.Pod) {
	set["spec.nodeName"] = p.Spec.NodeName
	set["spec.restartPolicy"] = string(p.Spec.RestartPolicy)
	set["spec.schedulerName"] = p.Spec.SchedulerName
	set["spec.serviceAccountName"] = p.Spec.ServiceAccountName
	set["spec.hostNetwork"] = strconv.FormatBool(p.Spec.HostNetwork)
	set["status.phase"] = string(p.Status.Phase)
	set["status.nominatedNodeName"] = p.Status.NominatedNodeName
	podIP := ""
	if len(p.Status.PodIPs) > 0 {
		podIP = p.Status.PodIPs[0].IP
	} else {
		podIP = p.Status.PodIP
	}
	set["status.podIP"] = podIP
}

func addEventFields(set fields.Set, e *corev1.Event) {
	io := e.InvolvedObject
	set["involvedObject.kind"] = io.Kind
	set["involvedObject.namespace"] = io.Namespace
	set["involvedObject.name"] = io.Name
	set["involvedObject.uid"] = string(io.UID)
	set["involvedObject.apiVersion"] = io.APIVersion
	set["involvedObject.resourceVersion"] = io.ResourceVersion
	set["involvedObject.fieldPath"] = io.FieldPath
	set["reason"] = e.Reason
	set["reportingComponent"] = e.ReportingController
	set["source"] = e.Source.Component
	set["type"] = e.Type
}
