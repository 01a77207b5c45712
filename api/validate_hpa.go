package api

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateHPA follows upstream's ValidateHorizontalPodAutoscalerSpec.
func validateHPA(h *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	s := &h.Spec
	ref := s.ScaleTargetRef
	errs := validateReplicaBounds(s.MinReplicas, s.MaxReplicas)
	errs = append(errs, validateScaleTargetRef(ref.Kind, ref.Name)...)
	for i, m := range s.Metrics {
		errs = append(errs, validateMetricSpec(m, specPath.Child("metrics").Index(i))...)
	}
	if b := s.Behavior; b != nil {
		bp := specPath.Child("behavior")
		errs = append(errs, validateScalingRules(b.ScaleUp, bp.Child("scaleUp"))...)
		errs = append(errs, validateScalingRules(b.ScaleDown, bp.Child("scaleDown"))...)
	}
	return errs
}

func validateHPAv1(h *autoscalingv1.HorizontalPodAutoscaler) field.ErrorList {
	s := &h.Spec
	errs := validateReplicaBounds(s.MinReplicas, s.MaxReplicas)
	errs = append(errs, validateScaleTargetRef(s.ScaleTargetRef.Kind, s.ScaleTargetRef.Name)...)
	if t := s.TargetCPUUtilizationPercentage; t != nil && *t < 1 {
		errs = append(errs, field.Invalid(specPath.Child("targetCPUUtilizationPercentage"), *t, "must be greater than 0"))
	}
	return errs
}

func validateReplicaBounds(min *int32, max int32) field.ErrorList {
	var errs field.ErrorList
	if min != nil && *min < 1 {
		errs = append(errs, field.Invalid(specPath.Child("minReplicas"), *min, "must be greater than or equal to 1"))
	}
	if max < 1 {
		errs = append(errs, field.Invalid(specPath.Child("maxReplicas"), max, "must be greater than 0"))
	}
	if min != nil && max < *min {
		errs = append(errs, field.Invalid(specPath.Child("maxReplicas"), max, "must be greater than or equal to `minReplicas`"))
	}
	return errs
}

func validateScaleTargetRef(kind, name string) field.ErrorList {
	p := specPath.Child("scaleTargetRef")
	var errs field.ErrorList
	if kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	} else {
		errs = append(errs, invalidEach(p.Child("kind"), kind, path.IsValidPathSegmentName(kind))...)
	}
	if name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		errs = append(errs, invalidEach(p.Child("name"), name, path.IsValidPathSegmentName(name))...)
	}
	return errs
}

// validateMetricSpec wants the source its type names, and a target.
func validateMetricSpec(m autoscalingv2.MetricSpec, p *field.Path) field.ErrorList {
	var target *autoscalingv2.MetricTarget
	var src string
	switch m.Type {
	case autoscalingv2.ResourceMetricSourceType:
		if m.Resource != nil {
			target, src = &m.Resource.Target, "resource"
		}
	case autoscalingv2.ContainerResourceMetricSourceType:
		if m.ContainerResource != nil {
			target, src = &m.ContainerResource.Target, "containerResource"
		}
	case autoscalingv2.PodsMetricSourceType:
		if m.Pods != nil {
			target, src = &m.Pods.Target, "pods"
		}
	case autoscalingv2.ObjectMetricSourceType:
		if m.Object != nil {
			target, src = &m.Object.Target, "object"
		}
	case autoscalingv2.ExternalMetricSourceType:
		if m.External != nil {
			target, src = &m.External.Target, "external"
		}
	case "":
		return field.ErrorList{field.Required(p.Child("type"), "must specify a metric source type")}
	default:
		return field.ErrorList{field.NotSupported(p.Child("type"), m.Type, []string{"ContainerResource", "External", "Object", "Pods", "Resource"})}
	}
	if target == nil {
		return field.ErrorList{field.Required(p, "must populate information for the given metric source")}
	}
	return validateMetricTarget(target, p.Child(src, "target"))
}

func validateMetricTarget(t *autoscalingv2.MetricTarget, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch t.Type {
	case autoscalingv2.UtilizationMetricType:
		if t.AverageUtilization == nil {
			errs = append(errs, field.Required(p.Child("averageUtilization"), "must set averageUtilization for Utilization targets"))
		} else if *t.AverageUtilization < 1 {
			errs = append(errs, field.Invalid(p.Child("averageUtilization"), *t.AverageUtilization, "must be greater than 0"))
		}
	case autoscalingv2.ValueMetricType:
		if t.Value == nil || t.Value.Sign() <= 0 {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, "must be positive"))
		}
	case autoscalingv2.AverageValueMetricType:
		if t.AverageValue == nil || t.AverageValue.Sign() <= 0 {
			errs = append(errs, field.Invalid(p.Child("averageValue"), t.AverageValue, "must be positive"))
		}
	case "":
		errs = append(errs, field.Required(p.Child("type"), "must specify a metric target type"))
	default:
		errs = append(errs, field.NotSupported(p.Child("type"), t.Type, []string{"AverageValue", "Utilization", "Value"}))
	}
	return errs
}

func validateScalingRules(r *autoscalingv2.HPAScalingRules, p *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	if w := r.StabilizationWindowSeconds; w != nil && (*w < 0 || *w > 3600) {
		errs = append(errs, field.Invalid(p.Child("stabilizationWindowSeconds"), *w, "must be between 0 and 3600"))
	}
	if sp := r.SelectPolicy; sp != nil {
		errs = append(errs, oneOf(*sp, []autoscalingv2.ScalingPolicySelect{autoscalingv2.MaxChangePolicySelect,
			autoscalingv2.MinChangePolicySelect, autoscalingv2.DisabledPolicySelect}, p.Child("selectPolicy"))...)
	}
	if len(r.Policies) == 0 {
		errs = append(errs, field.Required(p.Child("policies"), "must specify at least one Policy"))
	}
	for i, pol := range r.Policies {
		pp := p.Child("policies").Index(i)
		errs = append(errs, oneOf(pol.Type, []autoscalingv2.HPAScalingPolicyType{autoscalingv2.PodsScalingPolicy,
			autoscalingv2.PercentScalingPolicy}, pp.Child("type"))...)
		if pol.Value <= 0 {
			errs = append(errs, field.Invalid(pp.Child("value"), pol.Value, "must be greater than zero"))
		}
		if pol.PeriodSeconds <= 0 || pol.PeriodSeconds > 1800 {
			errs = append(errs, field.Invalid(pp.Child("periodSeconds"), pol.PeriodSeconds, "must be greater than zero and less than or equal to 1800"))
		}
	}
	return errs
}
