package api

import (
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateVolumes checks pod volumes and returns the set of their names for
// the volume mount checks.
func validateVolumes(vols []corev1.Volume, p *field.Path) (*nameSet, field.ErrorList) {
	var errs field.ErrorList
	names := &nameSet{}
	for i := range vols {
		v, vp := &vols[i], p.Index(i)
		switch {
		case v.Name == "":
			errs = append(errs, field.Required(vp.Child("name"), ""))
		case names.has(v.Name):
			errs = append(errs, field.Duplicate(vp.Child("name"), v.Name))
		default:
			if msgs := dns1123LabelProblems(v.Name); msgs != nil {
				errs = append(errs, invalidEach(vp.Child("name"), v.Name, msgs)...)
			}
		}
		names.insert(v.Name)
		switch volumeSourceCount(&v.VolumeSource) {
		case 0:
			errs = append(errs, field.Required(vp, "must specify a volume type"))
		case 1:
			errs = append(errs, validateVolumeSource(&v.VolumeSource, vp)...)
		default:
			errs = append(errs, field.Forbidden(vp, "may not specify more than 1 volume type"))
		}
	}
	return names, errs
}

func validateVolumeSource(s *corev1.VolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case s.HostPath != nil:
		hp := p.Child("hostPath", "path")
		if s.HostPath.Path == "" {
			errs = append(errs, field.Required(hp, ""))
		} else if strings.Contains(s.HostPath.Path, "..") {
			errs = append(errs, field.Invalid(hp, s.HostPath.Path, "must not contain '..'"))
		}
	case s.EmptyDir != nil:
		if l := s.EmptyDir.SizeLimit; l != nil {
			errs = append(errs, validateQuantity(*l, p.Child("emptyDir", "sizeLimit"))...)
		}
	case s.ConfigMap != nil:
		cp := p.Child("configMap")
		if s.ConfigMap.Name == "" {
			errs = append(errs, field.Required(cp.Child("name"), ""))
		}
		errs = append(errs, validateKeyPaths(s.ConfigMap.Items, s.ConfigMap.DefaultMode, cp)...)
	case s.Secret != nil:
		sp := p.Child("secret")
		if s.Secret.SecretName == "" {
			errs = append(errs, field.Required(sp.Child("secretName"), ""))
		}
		errs = append(errs, validateKeyPaths(s.Secret.Items, s.Secret.DefaultMode, sp)...)
	}
	return errs
}

// validateKeyPaths checks configMap/secret volume items and file modes.
func validateKeyPaths(items []corev1.KeyToPath, mode *int32, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateMode(mode, p.Child("defaultMode"))...)
	for i, it := range items {
		ip := p.Child("items").Index(i)
		if it.Key == "" {
			errs = append(errs, field.Required(ip.Child("key"), ""))
		}
		errs = append(errs, validateRelativePath(it.Path, ip.Child("path"))...)
		errs = append(errs, validateMode(it.Mode, ip.Child("mode"))...)
	}
	return errs
}

func validateMode(mode *int32, p *field.Path) field.ErrorList {
	if mode == nil || (*mode >= 0 && *mode <= 0o777) {
		return nil
	}
	return field.ErrorList{field.Invalid(p, *mode, "must be a number between 0 and 0777 (octal), both inclusive")}
}

func validateRelativePath(s string, p *field.Path) field.ErrorList {
	switch {
	case s == "":
		return field.ErrorList{field.Required(p, "")}
	case path.IsAbs(s):
		return field.ErrorList{field.Invalid(p, s, "must be a relative path")}
	}
	for _, part := range strings.Split(s, "/") {
		if part == ".." {
			return field.ErrorList{field.Invalid(p, s, "must not contain '..'")}
		}
	}
	return nil
}

// validateMounts checks that mounts name existing volumes at unique paths.
func validateMounts(mounts []corev1.VolumeMount, p *field.Path, vols *nameSet) field.ErrorList {
	var errs field.ErrorList
	var paths nameSet
	for i, m := range mounts {
		mp := p.Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(mp.Child("name"), ""))
		} else if !vols.has(m.Name) {
			errs = append(errs, field.NotFound(mp.Child("name"), m.Name))
		}
		switch {
		case m.MountPath == "":
			errs = append(errs, field.Required(mp.Child("mountPath"), ""))
		case paths.has(m.MountPath):
			errs = append(errs, field.Invalid(mp.Child("mountPath"), m.MountPath, "must be unique"))
		}
		paths.insert(m.MountPath)
		if m.SubPath != "" && (path.IsAbs(m.SubPath) || strings.Contains(m.SubPath, "..")) {
			errs = append(errs, field.Invalid(mp.Child("subPath"), m.SubPath, "must be a relative path without '..'"))
		}
	}
	return errs
}

// validateProbe requires exactly one handler and sane timings.
func validateProbe(pr *corev1.Probe, p *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	var errs field.ErrorList
	h := pr.ProbeHandler
	n := 0
	for _, set := range []bool{h.Exec != nil, h.HTTPGet != nil, h.TCPSocket != nil, h.GRPC != nil} {
		if set {
			n++
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(p, "must specify a handler type"))
	} else if n > 1 {
		errs = append(errs, field.Forbidden(p, "may not specify more than 1 handler type"))
	}
	if h.HTTPGet != nil {
		errs = append(errs, validatePortOrName(h.HTTPGet.Port.IntValue(), h.HTTPGet.Port.String(), p.Child("httpGet", "port"))...)
	}
	if h.TCPSocket != nil {
		errs = append(errs, validatePortOrName(h.TCPSocket.Port.IntValue(), h.TCPSocket.Port.String(), p.Child("tcpSocket", "port"))...)
	}
	for _, f := range []struct {
		v    int32
		name string
	}{{pr.InitialDelaySeconds, "initialDelaySeconds"}, {pr.TimeoutSeconds, "timeoutSeconds"}, {pr.PeriodSeconds, "periodSeconds"},
		{pr.SuccessThreshold, "successThreshold"}, {pr.FailureThreshold, "failureThreshold"}} {
		errs = append(errs, nonNegative(&f.v, p.Child(f.name))...)
	}
	return errs
}

func validatePortOrName(num int, s string, p *field.Path) field.ErrorList {
	if num != 0 {
		return invalidEach(p, num, validation.IsValidPortNum(num))
	}
	return invalidEach(p, s, validation.IsValidPortName(s))
}
