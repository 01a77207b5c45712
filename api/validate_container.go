package api

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	pullPolicies    = []corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}
	messagePolicies = []corev1.TerminationMessagePolicy{corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError}
	protocols       = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}
)

// validateContainers checks a container list; names collects container names
// across init and regular containers so duplicates between them are caught.
func validateContainers(list []corev1.Container, p *field.Path, vols, names *nameSet) field.ErrorList {
	var errs field.ErrorList
	for i := range list {
		c, cp := &list[i], containerPathsAt(p, i)
		switch {
		case c.Name == "":
			errs = append(errs, field.Required(cp.name, ""))
		case names.has(c.Name):
			errs = append(errs, field.Duplicate(cp.name, c.Name))
		default:
			if msgs := dns1123LabelProblems(c.Name); msgs != nil {
				errs = append(errs, invalidEach(cp.name, c.Name, msgs)...)
			}
		}
		names.insert(c.Name)
		errs = append(errs, validateImage(c.Image, cp.image)...)
		errs = append(errs, oneOf(c.ImagePullPolicy, pullPolicies, cp.imagePullPolicy)...)
		errs = append(errs, oneOf(c.TerminationMessagePolicy, messagePolicies, cp.terminationMessagePolicy)...)
		errs = append(errs, validatePorts(c.Ports, cp.ports)...)
		errs = append(errs, validateEnv(c.Env, cp.env)...)
		errs = append(errs, validateResources(&c.Resources, cp.resources)...)
		errs = append(errs, validateMounts(c.VolumeMounts, cp.volumeMounts, vols)...)
		errs = append(errs, validateProbe(c.LivenessProbe, cp.livenessProbe)...)
		errs = append(errs, validateProbe(c.ReadinessProbe, cp.readinessProbe)...)
		errs = append(errs, validateProbe(c.StartupProbe, cp.startupProbe)...)
	}
	return errs
}

func validateImage(image string, p *field.Path) field.ErrorList {
	switch {
	case image == "":
		return field.ErrorList{field.Required(p, "")}
	case strings.TrimSpace(image) != image:
		return field.ErrorList{field.Invalid(p, image, "must not have leading or trailing whitespace")}
	case hasSpace(image):
		return field.ErrorList{field.Invalid(p, image, "must not contain whitespace")}
	}
	return nil
}

func validatePorts(ports []corev1.ContainerPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	var names nameSet
	for i, port := range ports {
		pp := p.Index(i)
		if port.Name != "" {
			errs = append(errs, invalidEach(pp.Child("name"), port.Name, validation.IsValidPortName(port.Name))...)
			if names.has(port.Name) {
				errs = append(errs, field.Duplicate(pp.Child("name"), port.Name))
			}
			names.insert(port.Name)
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(pp.Child("containerPort"), ""))
		} else {
			errs = append(errs, invalidEach(pp.Child("containerPort"), port.ContainerPort, validation.IsValidPortNum(int(port.ContainerPort)))...)
		}
		if port.HostPort != 0 {
			errs = append(errs, invalidEach(pp.Child("hostPort"), port.HostPort, validation.IsValidPortNum(int(port.HostPort)))...)
		}
		errs = append(errs, oneOf(port.Protocol, protocols, pp.Child("protocol"))...)
	}
	return errs
}

func validateEnv(env []corev1.EnvVar, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range env {
		ep := p.Index(i)
		if e.Name == "" {
			errs = append(errs, field.Required(ep.Child("name"), ""))
		} else {
			errs = append(errs, invalidEach(ep.Child("name"), e.Name, validation.IsRelaxedEnvVarName(e.Name))...)
		}
		if e.ValueFrom == nil {
			continue
		}
		if e.Value != "" {
			errs = append(errs, field.Invalid(ep.Child("valueFrom"), "", "may not be specified when `value` is not empty"))
		}
		errs = append(errs, validateEnvSource(e.ValueFrom, ep.Child("valueFrom"))...)
	}
	return errs
}

func validateEnvSource(s *corev1.EnvVarSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	if s.FieldRef != nil {
		n++
		if s.FieldRef.FieldPath == "" {
			errs = append(errs, field.Required(p.Child("fieldRef", "fieldPath"), ""))
		}
	}
	if s.ResourceFieldRef != nil {
		n++
		if s.ResourceFieldRef.Resource == "" {
			errs = append(errs, field.Required(p.Child("resourceFieldRef", "resource"), ""))
		}
	}
	if r := s.ConfigMapKeyRef; r != nil {
		n++
		errs = append(errs, validateKeyRef(r.Name, r.Key, p.Child("configMapKeyRef"))...)
	}
	if r := s.SecretKeyRef; r != nil {
		n++
		errs = append(errs, validateKeyRef(r.Name, r.Key, p.Child("secretKeyRef"))...)
	}
	switch {
	case n == 0:
		errs = append(errs, field.Invalid(p, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"))
	case n > 1:
		errs = append(errs, field.Invalid(p, "", "may not have more than one field specified at a time"))
	}
	return errs
}

func validateKeyRef(name, key string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	if key == "" {
		errs = append(errs, field.Required(p.Child("key"), ""))
	} else {
		errs = append(errs, invalidEach(p.Child("key"), key, validation.IsConfigMapKey(key))...)
	}
	return errs
}

// validateResources checks resource names, that quantities are not
// negative, and that no request exceeds its limit. A quantity's path is
// built only for an error.
func validateResources(r *corev1.ResourceRequirements, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, part := range [...]struct {
		list corev1.ResourceList
		name string
	}{{r.Limits, "limits"}, {r.Requests, "requests"}} {
		for name, q := range part.list {
			msgs := qualifiedNameProblems(string(name))
			bad, value, detail := quantityProblem(q)
			if len(msgs) == 0 && !bad {
				continue
			}
			qp := p.Child(part.name).Key(string(name))
			errs = append(errs, invalidEach(qp, string(name), msgs)...)
			if bad {
				errs = append(errs, field.Invalid(qp, value, detail))
			}
		}
	}
	for name, req := range r.Requests {
		lim, ok := r.Limits[name]
		if ok && req.Cmp(lim) > 0 {
			errs = append(errs, field.Invalid(p.Child("requests").Key(string(name)), req.String(),
				fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
		}
	}
	return errs
}

// qualifiedNameProblems is validation.IsQualifiedName, answered at once
// for the names every pod carries (its regular expressions are not free).
func qualifiedNameProblems(name string) []string {
	switch name {
	case string(corev1.ResourceCPU), string(corev1.ResourceMemory), string(corev1.ResourceEphemeralStorage),
		string(corev1.ResourceStorage), corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable:
		return nil
	}
	if isQualifiedName(name) {
		return nil
	}
	return validation.IsQualifiedName(name)
}

// validateQuantity requires a quantity to be non-negative and storable.
func validateQuantity(q resource.Quantity, p *field.Path) field.ErrorList {
	if bad, value, detail := quantityProblem(q); bad {
		return field.ErrorList{field.Invalid(p, value, detail)}
	}
	return nil
}

// quantityProblem is what validateQuantity finds wrong with q: the value
// to report and why.
func quantityProblem(q resource.Quantity) (bad bool, value any, detail string) {
	printed := q.String()
	if err := checkQuantityText(printed); err != nil {
		return true, printed, err.Error()
	}
	if err := checkPrinted(q, printed); err != nil {
		return true, fmt.Sprintf("%g", q.AsApproximateFloat64()), err.Error()
	}
	if q.Sign() < 0 {
		return true, q.String(), "must be greater than or equal to 0"
	}
	return false, nil, ""
}
