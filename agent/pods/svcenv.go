package pods

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/network/dns"
)

// serviceEnv is the pod's service variables (FOO_SERVICE_HOST and the
// docker-link ones) from the Services the agent holds: its namespace's
// unless enableServiceLinks is false, and default/kubernetes always. None
// when the agent has no Services source (Config.Services nil).
func (m *Manager) serviceEnv(pod *corev1.Pod) []corev1.EnvVar {
	if m.cfg.Services == nil {
		return nil
	}
	links := pod.Spec.EnableServiceLinks == nil || *pod.Spec.EnableServiceLinks
	return dns.ServiceEnv(pod.Namespace, links, m.cfg.Services(pod.Namespace))
}
