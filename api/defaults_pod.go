package api

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Defaults a real apiserver applies to pod specs and containers.
const (
	DefaultSchedulerName         = corev1.DefaultSchedulerName
	DefaultTerminationGrace      = int64(30)
	DefaultTerminationMessage    = corev1.TerminationMessagePathDefault
	defaultVolumeMode            = int32(0o644)
	defaultProbeTimeoutSeconds   = 1
	defaultProbePeriodSeconds    = 10
	defaultProbeSuccessThreshold = 1
	defaultProbeFailureThreshold = 3
)

// defaultPod defaults a bare Pod: its spec, plus requests copied from limits
// where a container sets only limits (templates do not get that).
func defaultPod(p *corev1.Pod) {
	defaultPodSpec(&p.Spec)
	p.Spec.Tolerations = DefaultTolerations(p.Spec.Tolerations)
	for i := range p.Spec.InitContainers {
		defaultRequestsFromLimits(&p.Spec.InitContainers[i].Resources)
	}
	for i := range p.Spec.Containers {
		defaultRequestsFromLimits(&p.Spec.Containers[i].Resources)
	}
}

// DefaultTolerationSeconds is how long a pod stays bound to a node that is
// not ready or unreachable before the node lifecycle controller evicts it,
// unless the pod says otherwise (the apiserver's DefaultTolerationSeconds
// admission, with its default of 300 s).
const DefaultTolerationSeconds = int64(300)

// DefaultTolerations adds to tolerations, for each of the taints
// node.kubernetes.io/not-ready:NoExecute and
// node.kubernetes.io/unreachable:NoExecute that none of them already
// tolerates by key (or an empty key) and effect (NoExecute or empty), a
// toleration of DefaultTolerationSeconds. Pods get it on every write, as
// the admission plugin does on create and update; templates do not.
func DefaultTolerations(tolerations []corev1.Toleration) []corev1.Toleration {
	keys := [2]string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable}
	missing := 0
	for _, key := range keys {
		if !coversTaintKey(tolerations, key) {
			missing++
		}
	}
	if missing == 0 {
		return slices.Clip(tolerations)
	}
	// One new array and one for the seconds (each toleration its own
	// element), however many are added: never the caller's array.
	out := make([]corev1.Toleration, len(tolerations), len(tolerations)+missing)
	copy(out, tolerations)
	secs := make([]int64, 0, missing)
	for _, key := range keys {
		if coversTaintKey(tolerations, key) {
			continue
		}
		secs = append(secs, DefaultTolerationSeconds)
		out = append(out, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists,
			Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs[len(secs)-1]})
	}
	return out
}

func coversTaintKey(tolerations []corev1.Toleration, key string) bool {
	for _, t := range tolerations {
		if (t.Key == key || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") {
			return true
		}
	}
	return false
}

func defaultRequestsFromLimits(r *corev1.ResourceRequirements) {
	for name, q := range r.Limits {
		if _, ok := r.Requests[name]; ok {
			continue
		}
		if r.Requests == nil {
			r.Requests = corev1.ResourceList{}
		}
		r.Requests[name] = q.DeepCopy()
	}
}

func defaultPodSpec(s *corev1.PodSpec) {
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.SchedulerName == "" {
		s.SchedulerName = DefaultSchedulerName
	}
	if s.TerminationGracePeriodSeconds == nil {
		g := DefaultTerminationGrace
		s.TerminationGracePeriodSeconds = &g
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	for i := range s.InitContainers {
		defaultContainer(&s.InitContainers[i], s.HostNetwork)
	}
	for i := range s.Containers {
		defaultContainer(&s.Containers[i], s.HostNetwork)
	}
	for i := range s.EphemeralContainers {
		defaultContainer(EphemeralContainer(&s.EphemeralContainers[i]), s.HostNetwork)
	}
	for i := range s.Volumes {
		defaultVolume(&s.Volumes[i])
	}
}

func defaultContainer(c *corev1.Container, hostNetwork bool) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = PullPolicyFor(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = DefaultTerminationMessage
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		p := &c.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if hostNetwork && p.HostPort == 0 {
			p.HostPort = p.ContainerPort
		}
	}
	for i := range c.Env {
		if ref := envFieldRef(c.Env[i]); ref != nil && ref.APIVersion == "" {
			ref.APIVersion = "v1"
		}
	}
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		defaultProbe(p)
	}
}

func envFieldRef(e corev1.EnvVar) *corev1.ObjectFieldSelector {
	if e.ValueFrom == nil {
		return nil
	}
	return e.ValueFrom.FieldRef
}

// PullPolicyFor is the imagePullPolicy an image gets by default: Always for
// ":latest" or an untagged name without digest, IfNotPresent otherwise.
func PullPolicyFor(image string) corev1.PullPolicy {
	if strings.Contains(image, "@") {
		return corev1.PullIfNotPresent
	}
	name := image[strings.LastIndex(image, "/")+1:]
	i := strings.LastIndex(name, ":")
	if i < 0 || name[i+1:] == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

func defaultProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = defaultProbeTimeoutSeconds
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = defaultProbePeriodSeconds
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = defaultProbeSuccessThreshold
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = defaultProbeFailureThreshold
	}
	if h := p.HTTPGet; h != nil {
		if h.Path == "" {
			h.Path = "/"
		}
		if h.Scheme == "" {
			h.Scheme = corev1.URISchemeHTTP
		}
	}
}

// defaultVolume gives a source-less volume an emptyDir and file modes to
// projected kinds, as the real apiserver does.
func defaultVolume(v *corev1.Volume) {
	src := &v.VolumeSource
	if volumeSourceCount(src) == 0 {
		src.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	mode := func(m **int32) {
		if *m == nil {
			d := defaultVolumeMode
			*m = &d
		}
	}
	switch {
	case src.ConfigMap != nil:
		mode(&src.ConfigMap.DefaultMode)
	case src.Secret != nil:
		mode(&src.Secret.DefaultMode)
	case src.Projected != nil:
		mode(&src.Projected.DefaultMode)
	case src.DownwardAPI != nil:
		mode(&src.DownwardAPI.DefaultMode)
	case src.HostPath != nil && src.HostPath.Type == nil:
		t := corev1.HostPathUnset
		src.HostPath.Type = &t
	}
}

// intOrPercent is a helper for rolling update defaults.
func intOrPercent(s string) *intstr.IntOrString {
	v := intstr.Parse(s)
	return &v
}
