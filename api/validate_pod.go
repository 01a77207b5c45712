package api

import (
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func validatePod(p *corev1.Pod) field.ErrorList {
	return validatePodSpec(&p.Spec, specPath)
}

var (
	restartPolicies = []corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}
	dnsPolicies     = []corev1.DNSPolicy{corev1.DNSClusterFirst, corev1.DNSClusterFirstWithHostNet, corev1.DNSDefault, corev1.DNSNone}
)

func validatePodSpec(s *corev1.PodSpec, p *field.Path) field.ErrorList {
	ps := podSpecPathsAt(p)
	vols, errs := validateVolumes(s.Volumes, ps.volumes)
	names := &nameSet{}
	errs = append(errs, validateContainers(s.InitContainers, ps.initContainers, vols, names)...)
	if len(s.Containers) == 0 {
		errs = append(errs, field.Required(ps.containers, ""))
	}
	errs = append(errs, validateContainers(s.Containers, ps.containers, vols, names)...)
	errs = append(errs, oneOf(s.RestartPolicy, restartPolicies, ps.restartPolicy)...)
	errs = append(errs, oneOf(s.DNSPolicy, dnsPolicies, ps.dnsPolicy)...)
	if g := s.TerminationGracePeriodSeconds; g != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(*g, ps.terminationGracePeriodSeconds)...)
	}
	if d := s.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > math.MaxInt32) {
		errs = append(errs, field.Invalid(ps.activeDeadlineSeconds, *d, "must be between 1 and 2147483647, inclusive"))
	}
	errs = append(errs, metav1validation.ValidateLabels(s.NodeSelector, ps.nodeSelector)...)
	errs = append(errs, validateNodeAffinity(s.Affinity, ps.affinity)...)
	if s.NodeName != "" {
		errs = append(errs, invalidEach(ps.nodeName, s.NodeName, apivalidation.NameIsDNSSubdomain(s.NodeName, false))...)
	}
	for i, t := range s.Tolerations {
		errs = append(errs, validateToleration(t, ps.tolerations, i)...)
	}
	return errs
}

// oneOf requires v to be set and one of the allowed values.
func oneOf[T ~string](v T, allowed []T, p *field.Path) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(p, v, allowed)}
}

var effects = []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}

// validateToleration checks item i of the tolerations at list, building
// its paths only for an error.
func validateToleration(t corev1.Toleration, list *field.Path, i int) field.ErrorList {
	var errs field.ErrorList
	at := func(name string) *field.Path { return list.Index(i).Child(name) }
	if t.Key != "" {
		if msgs := qualifiedNameProblems(t.Key); len(msgs) > 0 {
			errs = append(errs, invalidEach(at("key"), t.Key, msgs)...) // metav1validation.ValidateLabelName's errors
		}
	} else if t.Operator != corev1.TolerationOpExists {
		errs = append(errs, field.Invalid(at("operator"), t.Operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
	}
	switch t.Operator {
	case corev1.TolerationOpEqual, "":
	case corev1.TolerationOpExists:
		if t.Value != "" {
			errs = append(errs, field.Invalid(at("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
		}
	default:
		errs = append(errs, field.NotSupported(at("operator"), t.Operator, []corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
	}
	if t.Effect != "" && !slices.Contains(effects, t.Effect) {
		errs = append(errs, oneOf(t.Effect, effects, at("effect"))...)
	}
	if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
		errs = append(errs, field.Invalid(at("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
	}
	return errs
}

// podUpdateMessage is the real apiserver's explanation of what may change.
const podUpdateMessage = "pod updates may not change fields other than `spec.containers[*].image`, " +
	"`spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` " +
	"(only additions to existing tolerations), `spec.terminationGracePeriodSeconds` " +
	"(allow it to be set to 1 if it was previously negative)"

// validatePodUpdate allows only image changes, activeDeadlineSeconds being
// set or lowered, and added tolerations.
func validatePodUpdate(p, old *corev1.Pod) field.ErrorList {
	var errs field.ErrorList
	if nd, od := p.Spec.ActiveDeadlineSeconds, old.Spec.ActiveDeadlineSeconds; od != nil && (nd == nil || *nd > *od) {
		errs = append(errs, field.Invalid(specPath.Child("activeDeadlineSeconds"), nd, "must be less than or equal to previous value"))
	}
	if !tolerationsAdded(p.Spec.Tolerations, old.Spec.Tolerations) {
		errs = append(errs, field.Forbidden(specPath.Child("tolerations"), "existing toleration can not be modified except its tolerationSeconds"))
	}
	mutable := p.Spec.DeepCopy()
	mutable.ActiveDeadlineSeconds = old.Spec.ActiveDeadlineSeconds
	mutable.Tolerations = old.Spec.Tolerations
	copyImages(mutable.Containers, old.Spec.Containers)
	copyImages(mutable.InitContainers, old.Spec.InitContainers)
	if !equality.Semantic.DeepEqual(*mutable, old.Spec) {
		errs = append(errs, field.Forbidden(specPath, podUpdateMessage))
	}
	return errs
}

func copyImages(dst, src []corev1.Container) {
	if len(dst) != len(src) {
		return
	}
	for i := range dst {
		dst[i].Image = src[i].Image
	}
}

// tolerationsAdded reports whether every old toleration is still present
// (its tolerationSeconds may change).
func tolerationsAdded(now, old []corev1.Toleration) bool {
	for _, o := range old {
		found := false
		for _, n := range now {
			o.TolerationSeconds, n.TolerationSeconds = nil, nil
			if equality.Semantic.DeepEqual(o, n) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
