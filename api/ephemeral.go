package api

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// SubresourceEphemeral is the pods subresource that adds ephemeral
// containers (kubectl debug).
const SubresourceEphemeral = "ephemeralcontainers"

var ephemeralPath = specPath.Child("ephemeralContainers")

// EphemeralContainer is an ephemeral container seen as a regular one:
// both share their fields, and the agent runs them alike.
func EphemeralContainer(ec *corev1.EphemeralContainer) *corev1.Container {
	return (*corev1.Container)(&ec.EphemeralContainerCommon)
}

// PrepareForEphemeralUpdate keeps everything of the stored pod but
// spec.ephemeralContainers, as a write to the status subresource keeps
// everything but status: other changes in the body are dropped.
func PrepareForEphemeralUpdate(obj, old Object) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	o := old.(*corev1.Pod).DeepCopy()
	ephemeral, rv := p.Spec.EphemeralContainers, p.ResourceVersion
	p.ObjectMeta, p.Spec, p.Status = o.ObjectMeta, o.Spec, o.Status
	p.Spec.EphemeralContainers, p.ResourceVersion = ephemeral, rv
}

// ValidateEphemeralUpdate checks a write to pods/ephemeralcontainers: new
// ephemeral containers are valid, and the stored ones are all still there
// and unchanged.
func ValidateEphemeralUpdate(obj, old Object) field.ErrorList {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return field.ErrorList{field.NotSupported(field.NewPath("kind"), obj.GetObjectKind().GroupVersionKind().Kind, []string{"Pod"})}
	}
	errs := apivalidation.ValidateObjectMetaAccessorUpdate(obj, old, field.NewPath("metadata"))
	errs = append(errs, validateEphemeralContainers(&p.Spec)...)
	return append(errs, ephemeralKept(p.Spec.EphemeralContainers, old.(*corev1.Pod).Spec.EphemeralContainers)...)
}

// ephemeralKept refuses removing or changing an ephemeral container.
func ephemeralKept(now, old []corev1.EphemeralContainer) field.ErrorList {
	var errs field.ErrorList
	byName := map[string]int{}
	for i := range now {
		byName[now[i].Name] = i
	}
	for i := range old {
		j, ok := byName[old[i].Name]
		switch {
		case !ok:
			errs = append(errs, field.Forbidden(ephemeralPath.Index(i),
				fmt.Sprintf("existing ephemeral containers %q may not be removed", old[i].Name)))
		case !equality.Semantic.DeepEqual(now[j], old[i]):
			errs = append(errs, field.Forbidden(ephemeralPath.Index(j),
				fmt.Sprintf("existing ephemeral containers %q may not be changed", old[i].Name)))
		}
	}
	return errs
}

// validateEphemeralContainers checks each ephemeral container as a
// container of the pod (names unique across all of them, mounts naming
// the pod's volumes) plus the fields only an ephemeral one has or lacks.
func validateEphemeralContainers(s *corev1.PodSpec) field.ErrorList {
	vols, _ := validateVolumes(s.Volumes, specPath.Child("volumes"))
	names, targets := &nameSet{}, &nameSet{}
	for _, c := range append(append([]corev1.Container{}, s.InitContainers...), s.Containers...) {
		names.insert(c.Name)
		targets.insert(c.Name)
	}
	list := make([]corev1.Container, len(s.EphemeralContainers))
	for i := range s.EphemeralContainers {
		list[i] = *EphemeralContainer(&s.EphemeralContainers[i])
	}
	errs := validateContainers(list, ephemeralPath, vols, names)
	for i := range s.EphemeralContainers {
		ec, p := &s.EphemeralContainers[i], ephemeralPath.Index(i)
		errs = append(errs, ephemeralForbidden(EphemeralContainer(ec), p)...)
		if t := ec.TargetContainerName; t != "" && !targets.has(t) {
			errs = append(errs, field.NotFound(p.Child("targetContainerName"), t))
		}
	}
	return errs
}

// ephemeralForbidden names the fields an ephemeral container may not set:
// it serves no ports, is never probed or restarted, and takes no
// resources of its own (the pod's are already allotted).
func ephemeralForbidden(c *corev1.Container, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	forbid := func(set bool, name string) {
		if set {
			errs = append(errs, field.Forbidden(p.Child(name), "cannot be set for an Ephemeral Container"))
		}
	}
	forbid(len(c.Ports) > 0, "ports")
	forbid(c.LivenessProbe != nil, "livenessProbe")
	forbid(c.ReadinessProbe != nil, "readinessProbe")
	forbid(c.StartupProbe != nil, "startupProbe")
	forbid(c.Lifecycle != nil, "lifecycle")
	forbid(len(c.Resources.Limits)+len(c.Resources.Requests)+len(c.Resources.Claims) > 0, "resources")
	forbid(len(c.ResizePolicy) > 0, "resizePolicy")
	forbid(c.RestartPolicy != nil, "restartPolicy")
	for i, m := range c.VolumeMounts {
		if m.SubPath != "" || m.SubPathExpr != "" {
			errs = append(errs, field.Forbidden(p.Child("volumeMounts").Index(i).Child("subPath"), "cannot be set for an Ephemeral Container"))
		}
	}
	return errs
}

// ephemeralOnCreate: a pod is created without ephemeral containers; they
// are added through the subresource.
func ephemeralOnCreate(s *corev1.PodSpec) field.ErrorList {
	if len(s.EphemeralContainers) == 0 {
		return nil
	}
	return field.ErrorList{field.Forbidden(ephemeralPath, "cannot be set on create")}
}
