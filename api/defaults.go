package api

import (
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Default fills in the fields a real apiserver defaults, in place, for every
// kind bramble serves. It only sets fields that are unset, so it is safe to
// apply twice. Kinds without defaults are left alone.
func Default(obj Object) {
	switch o := obj.(type) {
	case *corev1.Pod:
		defaultPod(o)
	case *corev1.Namespace:
		defaultNamespace(o)
	case *corev1.Node:
		defaultNode(o)
	case *corev1.Secret:
		defaultSecret(o)
	case *appsv1.Deployment:
		defaultDeployment(o)
	case *appsv1.ReplicaSet:
		if o.Spec.Replicas == nil {
			o.Spec.Replicas = ptrTo(int32(1))
		}
		defaultPodSpec(&o.Spec.Template.Spec)
	case *appsv1.DaemonSet:
		defaultDaemonSet(o)
	case *batchv1.Job:
		defaultJob(o)
	default:
		if k := rulesOf(obj); k != nil && k.Default != nil {
			k.Default(obj)
		}
	}
}

// defaultSecret sets type Opaque and folds stringData into data, as the
// real apiserver does on every write (stringData is never stored).
func defaultSecret(s *corev1.Secret) {
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
	if len(s.StringData) > 0 && s.Data == nil {
		s.Data = map[string][]byte{}
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}

func ptrTo[T any](v T) *T { return &v }

// LabelNamespaceName is the label every namespace carries with its own name.
const LabelNamespaceName = "kubernetes.io/metadata.name"

func defaultNamespace(ns *corev1.Namespace) {
	if ns.Status.Phase == "" {
		ns.Status.Phase = corev1.NamespaceActive
	}
	if ns.Name != "" {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[LabelNamespaceName] = ns.Name
	}
}

// defaultNode makes allocatable default to capacity.
func defaultNode(n *corev1.Node) {
	if len(n.Status.Allocatable) == 0 && len(n.Status.Capacity) > 0 {
		n.Status.Allocatable = n.Status.Capacity.DeepCopy()
	}
}

func defaultDeployment(d *appsv1.Deployment) {
	s := &d.Spec
	if s.Replicas == nil {
		s.Replicas = ptrTo(int32(1))
	}
	if s.Strategy.Type == "" {
		s.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if s.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if s.Strategy.RollingUpdate == nil {
			s.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		ru := s.Strategy.RollingUpdate
		if ru.MaxUnavailable == nil {
			ru.MaxUnavailable = intOrPercent("25%")
		}
		if ru.MaxSurge == nil {
			ru.MaxSurge = intOrPercent("25%")
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptrTo(int32(10))
	}
	if s.ProgressDeadlineSeconds == nil {
		s.ProgressDeadlineSeconds = ptrTo(int32(600))
	}
	defaultPodSpec(&s.Template.Spec)
}

func defaultDaemonSet(ds *appsv1.DaemonSet) {
	s := &ds.Spec
	if s.UpdateStrategy.Type == "" {
		s.UpdateStrategy.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if s.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if s.UpdateStrategy.RollingUpdate == nil {
			s.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		ru := s.UpdateStrategy.RollingUpdate
		if ru.MaxUnavailable == nil {
			ru.MaxUnavailable = intOrPercent("1")
		}
		if ru.MaxSurge == nil {
			ru.MaxSurge = intOrPercent("0")
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptrTo(int32(10))
	}
	defaultPodSpec(&s.Template.Spec)
}

func defaultJob(j *batchv1.Job) {
	s := &j.Spec
	if s.Completions == nil && s.Parallelism == nil {
		s.Completions = ptrTo(int32(1))
	}
	if s.Parallelism == nil {
		s.Parallelism = ptrTo(int32(1))
	}
	if s.BackoffLimit == nil {
		s.BackoffLimit = ptrTo(int32(6))
	}
	if s.CompletionMode == nil {
		s.CompletionMode = ptrTo(batchv1.NonIndexedCompletion)
	}
	if s.Suspend == nil {
		s.Suspend = ptrTo(false)
	}
	if s.ManualSelector == nil {
		s.ManualSelector = ptrTo(false)
	}
	defaultPodFailurePolicy(s.PodFailurePolicy)
	if s.PodReplacementPolicy == nil {
		p := batchv1.TerminatingOrFailed
		if s.PodFailurePolicy != nil {
			p = batchv1.Failed
		}
		s.PodReplacementPolicy = &p
	}
	if len(j.Labels) == 0 && len(s.Template.Labels) > 0 {
		j.Labels = cloneMap(s.Template.Labels)
	}
	defaultPodSpec(&s.Template.Spec)
}

// defaultPodFailurePolicy makes onPodConditions patterns match status True.
func defaultPodFailurePolicy(pfp *batchv1.PodFailurePolicy) {
	if pfp == nil {
		return
	}
	for i := range pfp.Rules {
		for k := range pfp.Rules[i].OnPodConditions {
			if c := &pfp.Rules[i].OnPodConditions[k]; c.Status == "" {
				c.Status = corev1.ConditionTrue
			}
		}
	}
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// volumeSourceCount counts the sources set in a VolumeSource (all of its
// fields are pointers to one source kind each).
func volumeSourceCount(src *corev1.VolumeSource) int {
	v := reflect.ValueOf(src).Elem()
	n := 0
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			n++
		}
	}
	return n
}
