package api

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// pod writes a Pod: metadata, spec and status by hand, the rarely set
// parts of the spec through json.Marshal.
func (e *encoder) pod(p *corev1.Pod, kind, apiVersion string) {
	e.typeMeta(kind, apiVersion)
	object(e, "metadata", &p.ObjectMeta, (*encoder).objectMeta)
	object(e, "spec", &p.Spec, (*encoder).podSpec)
	object(e, "status", &p.Status, (*encoder).podStatus)
	e.b = append(e.b, '}')
}

func (e *encoder) podSpec(s *corev1.PodSpec) {
	objectList(e, "volumes", s.Volumes, (*encoder).volume)
	objectList(e, "initContainers", s.InitContainers, (*encoder).container)
	e.field("containers") // not omitempty
	objects(e, s.Containers, (*encoder).container)
	fallbackSlice(e, "ephemeralContainers", s.EphemeralContainers)
	e.strOmit("restartPolicy", string(s.RestartPolicy))
	e.int64Ptr("terminationGracePeriodSeconds", s.TerminationGracePeriodSeconds)
	e.int64Ptr("activeDeadlineSeconds", s.ActiveDeadlineSeconds)
	e.strOmit("dnsPolicy", string(s.DNSPolicy))
	e.stringMap("nodeSelector", s.NodeSelector)
	e.strOmit("serviceAccountName", s.ServiceAccountName)
	e.strOmit("serviceAccount", s.DeprecatedServiceAccount)
	e.boolPtr("automountServiceAccountToken", s.AutomountServiceAccountToken)
	e.strOmit("nodeName", s.NodeName)
	e.boolOmit("hostNetwork", s.HostNetwork)
	e.boolOmit("hostPID", s.HostPID)
	e.boolOmit("hostIPC", s.HostIPC)
	e.boolPtr("shareProcessNamespace", s.ShareProcessNamespace)
	e.podSecurityContext(s.SecurityContext)
	objectList(e, "imagePullSecrets", s.ImagePullSecrets, (*encoder).localObjectReference)
	e.strOmit("hostname", s.Hostname)
	e.strOmit("subdomain", s.Subdomain)
	fallbackPtr(e, "affinity", s.Affinity)
	e.strOmit("schedulerName", s.SchedulerName)
	objectList(e, "tolerations", s.Tolerations, (*encoder).toleration)
	e.podSpecTail(s)
}

// podSpecTail is the spec's fields after its tolerations.
func (e *encoder) podSpecTail(s *corev1.PodSpec) {
	fallbackSlice(e, "hostAliases", s.HostAliases)
	e.strOmit("priorityClassName", s.PriorityClassName)
	e.int32Ptr("priority", s.Priority)
	fallbackPtr(e, "dnsConfig", s.DNSConfig)
	fallbackSlice(e, "readinessGates", s.ReadinessGates)
	e.strPtr("runtimeClassName", s.RuntimeClassName)
	e.boolPtr("enableServiceLinks", s.EnableServiceLinks)
	e.strPtr("preemptionPolicy", (*string)(s.PreemptionPolicy))
	e.resourceList("overhead", s.Overhead)
	fallbackSlice(e, "topologySpreadConstraints", s.TopologySpreadConstraints)
	e.boolPtr("setHostnameAsFQDN", s.SetHostnameAsFQDN)
	fallbackPtr(e, "os", s.OS)
	e.boolPtr("hostUsers", s.HostUsers)
	fallbackSlice(e, "schedulingGates", s.SchedulingGates)
	fallbackSlice(e, "resourceClaims", s.ResourceClaims)
	objectPtr(e, "resources", s.Resources, (*encoder).resourceRequirements)
}

// podSecurityContext writes the defaulted empty context of most pods as
// {} and any other through json.Marshal.
func (e *encoder) podSecurityContext(sc *corev1.PodSecurityContext) {
	switch {
	case sc == nil:
	case emptyPodSecurityContext(sc):
		e.field("securityContext")
		e.b = append(e.b, '{', '}')
	default:
		e.fallback("securityContext", sc)
	}
}

func emptyPodSecurityContext(sc *corev1.PodSecurityContext) bool {
	return sc.SELinuxOptions == nil && sc.WindowsOptions == nil && sc.RunAsUser == nil && sc.RunAsGroup == nil &&
		sc.RunAsNonRoot == nil && len(sc.SupplementalGroups) == 0 && sc.SupplementalGroupsPolicy == nil &&
		sc.FSGroup == nil && len(sc.Sysctls) == 0 && sc.FSGroupChangePolicy == nil && sc.SeccompProfile == nil &&
		sc.AppArmorProfile == nil && sc.SELinuxChangePolicy == nil
}

func (e *encoder) localObjectReference(r *corev1.LocalObjectReference) {
	e.strOmit("name", r.Name)
}

func (e *encoder) toleration(t *corev1.Toleration) {
	e.strOmit("key", t.Key)
	e.strOmit("operator", string(t.Operator))
	e.strOmit("value", t.Value)
	e.strOmit("effect", string(t.Effect))
	e.int64Ptr("tolerationSeconds", t.TolerationSeconds)
}

// encodeKnown is the JSON of a Pod or core/v1 Event with gvk's type
// fields, written without reflection; ok is false for any other type and
// when some part failed to encode (the caller then uses json.Marshal,
// which reports the failure).
func encodeKnown(obj runtime.Object, gvk schema.GroupVersionKind) (data []byte, ok bool) {
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	switch o := obj.(type) {
	case *corev1.Pod:
		return encodeWith(func(e *encoder) { e.pod(o, kind, apiVersion) })
	case *corev1.Event:
		return encodeWith(func(e *encoder) { e.event(o, kind, apiVersion) })
	}
	return nil, false
}
