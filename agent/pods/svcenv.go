package pods

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/network/dns"
)

// errServicesNotSynced is the kubelet's message while its Service informer
// has not synced.
var errServicesNotSynced = errors.New("services have not yet been read at least once, cannot construct envvars")

// serviceEnv is the pod's service variables (FOO_SERVICE_HOST and the
// docker-link ones) from the Services the agent holds: its namespace's
// unless enableServiceLinks is false, and default/kubernetes always. None
// when the agent has no Services source (Config.Services nil). While the
// source has not synced (and ServicesWait has not passed) it is a config
// error: the container waits and is tried again.
func (m *Manager) serviceEnv(pod *corev1.Pod) ([]corev1.EnvVar, error) {
	if m.cfg.Services == nil {
		return nil, nil
	}
	if s := m.cfg.ServicesSynced; s != nil && !s() && m.cfg.Clock.Now().Sub(m.created) < m.cfg.ServicesWait {
		return nil, fmt.Errorf("%w: %w", errConfig, errServicesNotSynced)
	}
	links := pod.Spec.EnableServiceLinks == nil || *pod.Spec.EnableServiceLinks
	return dns.ServiceEnv(pod.Namespace, links, m.cfg.Services(pod.Namespace)), nil
}
