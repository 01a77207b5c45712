package api

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateSelectedTemplate checks a workload's selector, its pod template,
// that the selector matches the template's labels, and the restart policies
// the workload allows.
func validateSelectedTemplate(kind string, sel *metav1.LabelSelector, t *corev1.PodTemplateSpec, restart []corev1.RestartPolicy) field.ErrorList {
	var errs field.ErrorList
	sp, tp := specPath.Child("selector"), specPath.Child("template")
	if sel == nil {
		errs = append(errs, field.Required(sp, ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, sp)...)
		if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(sp, sel, "empty selector is invalid for "+kind))
		}
	}
	errs = append(errs, metav1validation.ValidateLabels(t.Labels, tp.Child("metadata", "labels"))...)
	if sel != nil {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err == nil && !s.Matches(labels.Set(t.Labels)) {
			errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`"))
		}
	}
	errs = append(errs, validatePodSpec(&t.Spec, tp.Child("spec"))...)
	if p := t.Spec.RestartPolicy; p != "" && !contains(restart, p) {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), p, restart))
	}
	return errs
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

var onlyAlways = []corev1.RestartPolicy{corev1.RestartPolicyAlways}

func validateDeployment(d *appsv1.Deployment) field.ErrorList {
	s := &d.Spec
	errs := validateSelectedTemplate("deployment", s.Selector, &s.Template, onlyAlways)
	errs = append(errs, nonNegative(s.Replicas, specPath.Child("replicas"))...)
	errs = append(errs, nonNegative(&s.MinReadySeconds, specPath.Child("minReadySeconds"))...)
	errs = append(errs, nonNegative(s.RevisionHistoryLimit, specPath.Child("revisionHistoryLimit"))...)
	if pd := s.ProgressDeadlineSeconds; pd != nil {
		errs = append(errs, nonNegative(pd, specPath.Child("progressDeadlineSeconds"))...)
		if *pd <= s.MinReadySeconds {
			errs = append(errs, field.Invalid(specPath.Child("progressDeadlineSeconds"), *pd, "must be greater than minReadySeconds"))
		}
	}
	stp := specPath.Child("strategy")
	switch s.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if s.Strategy.RollingUpdate != nil {
			errs = append(errs, field.Forbidden(stp.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"))
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if ru := s.Strategy.RollingUpdate; ru != nil {
			errs = append(errs, validateRolling(ru.MaxUnavailable, ru.MaxSurge, stp.Child("rollingUpdate"))...)
		}
	default:
		errs = append(errs, oneOf(s.Strategy.Type, []appsv1.DeploymentStrategyType{appsv1.RecreateDeploymentStrategyType, appsv1.RollingUpdateDeploymentStrategyType}, stp.Child("type"))...)
	}
	return errs
}

// validateRolling checks maxUnavailable and maxSurge: non-negative ints or
// percentages, at most 100% unavailable, and not both zero.
func validateRolling(unavail, surge *intstr.IntOrString, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateIntOrPercent(unavail, p.Child("maxUnavailable"))...)
	errs = append(errs, validateIntOrPercent(surge, p.Child("maxSurge"))...)
	if isZero(unavail) && isZero(surge) {
		errs = append(errs, field.Invalid(p.Child("maxUnavailable"), unavail.String(), "may not be 0 when `maxSurge` is 0"))
	}
	if unavail != nil && unavail.Type == intstr.String {
		if v, err := intstr.GetScaledValueFromIntOrPercent(unavail, 100, false); err == nil && v > 100 {
			errs = append(errs, field.Invalid(p.Child("maxUnavailable"), unavail.String(), "must not be greater than 100%"))
		}
	}
	return errs
}

func validateIntOrPercent(v *intstr.IntOrString, p *field.Path) field.ErrorList {
	switch {
	case v == nil:
		return nil
	case v.Type == intstr.String:
		if msgs := validation.IsValidPercent(v.StrVal); len(msgs) > 0 {
			return invalidEach(p, v.StrVal, msgs)
		}
	case v.IntVal < 0:
		return field.ErrorList{field.Invalid(p, v.IntVal, "must be greater than or equal to 0")}
	}
	return nil
}

func isZero(v *intstr.IntOrString) bool {
	if v == nil {
		return false
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, 100, false)
	return err == nil && n == 0
}

func validateReplicaSet(rs *appsv1.ReplicaSet) field.ErrorList {
	s := &rs.Spec
	errs := validateSelectedTemplate("replicaset", s.Selector, &s.Template, onlyAlways)
	errs = append(errs, nonNegative(s.Replicas, specPath.Child("replicas"))...)
	return append(errs, nonNegative(&s.MinReadySeconds, specPath.Child("minReadySeconds"))...)
}

func validateDaemonSet(ds *appsv1.DaemonSet) field.ErrorList {
	s := &ds.Spec
	errs := validateSelectedTemplate("daemonset", s.Selector, &s.Template, onlyAlways)
	errs = append(errs, nonNegative(&s.MinReadySeconds, specPath.Child("minReadySeconds"))...)
	errs = append(errs, nonNegative(s.RevisionHistoryLimit, specPath.Child("revisionHistoryLimit"))...)
	up := specPath.Child("updateStrategy")
	switch s.UpdateStrategy.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
	case appsv1.RollingUpdateDaemonSetStrategyType:
		if ru := s.UpdateStrategy.RollingUpdate; ru != nil {
			errs = append(errs, validateRolling(ru.MaxUnavailable, ru.MaxSurge, up.Child("rollingUpdate"))...)
		}
	default:
		errs = append(errs, oneOf(s.UpdateStrategy.Type, []appsv1.DaemonSetUpdateStrategyType{appsv1.OnDeleteDaemonSetStrategyType, appsv1.RollingUpdateDaemonSetStrategyType}, up.Child("type"))...)
	}
	return errs
}

var jobRestart = []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}

func validateJob(j *batchv1.Job) field.ErrorList {
	s := &j.Spec
	errs := validateSelectedTemplate("job", s.Selector, &s.Template, jobRestart)
	for _, f := range []struct {
		v    *int32
		name string
	}{{s.Parallelism, "parallelism"}, {s.Completions, "completions"}, {s.BackoffLimit, "backoffLimit"}, {s.TTLSecondsAfterFinished, "ttlSecondsAfterFinished"}} {
		errs = append(errs, nonNegative(f.v, specPath.Child(f.name))...)
	}
	errs = append(errs, positive(s.ActiveDeadlineSeconds, specPath.Child("activeDeadlineSeconds"))...)
	if m := s.CompletionMode; m != nil {
		errs = append(errs, oneOf(*m, []batchv1.CompletionMode{batchv1.NonIndexedCompletion, batchv1.IndexedCompletion}, specPath.Child("completionMode"))...)
		if *m == batchv1.IndexedCompletion && s.Completions == nil {
			errs = append(errs, field.Required(specPath.Child("completions"), "when completion mode is Indexed"))
		}
	}
	return append(errs, validateGeneratedSelector(j)...)
}

// validateGeneratedSelector insists that, unless spec.manualSelector is set,
// the selector is the generated one that selects this job's uid.
func validateGeneratedSelector(j *batchv1.Job) field.ErrorList {
	if j.Spec.ManualSelector != nil && *j.Spec.ManualSelector {
		return nil
	}
	if j.UID == "" {
		return field.ErrorList{field.Required(field.NewPath("metadata", "uid"), "")}
	}
	sel, err := metav1.LabelSelectorAsSelector(j.Spec.Selector)
	if err == nil && j.Spec.Selector != nil && !sel.Matches(labels.Set{LabelJobControllerUID: string(j.UID)}) {
		return field.ErrorList{field.Invalid(specPath.Child("selector"), metav1.FormatLabelSelector(j.Spec.Selector), "`selector` not auto-generated")}
	}
	return nil
}

func validateJobUpdate(j, old *batchv1.Job) field.ErrorList {
	errs := immutableSelector(j.Spec.Selector, old.Spec.Selector)
	if !equality.Semantic.DeepEqual(j.Spec.Template, old.Spec.Template) {
		errs = append(errs, field.Invalid(specPath.Child("template"), field.OmitValueType{}, "field is immutable"))
	}
	errs = append(errs, immutable(j.Spec.Completions, old.Spec.Completions, specPath.Child("completions"))...)
	errs = append(errs, immutable(j.Spec.CompletionMode, old.Spec.CompletionMode, specPath.Child("completionMode"))...)
	return append(errs, immutable(j.Spec.PodFailurePolicy, old.Spec.PodFailurePolicy, specPath.Child("podFailurePolicy"))...)
}
