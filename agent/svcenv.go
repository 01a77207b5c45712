package agent

import (
	"encoding/json"
	"log/slog"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// storeServicesSynced reports whether the store holds the Services the
// server publishes, for the pod manager's wait before service variables:
// always when the agent does not route (it is sent none), else once
// default/kubernetes is there (every cluster has it, and the publisher
// sends a routing node all Services together).
func storeServicesSynced(store *Store, routes func() bool) func() bool {
	return func() bool {
		if !routes() {
			return true
		}
		_, ok := store.Get(mqtt.ObjectRef{Resource: storeServices, Namespace: "default", Name: "kubernetes"})
		return ok
	}
}

// storeServiceEnv lists, for a pod of namespace ns, the Services its
// service variables come from: ns's and default/kubernetes, from the local
// store (the trimmed copies the publisher sends routing agents; an agent
// that gets none gives its pods no service variables). A Service that does
// not decode is skipped with a warning.
func storeServiceEnv(store *Store, log *slog.Logger) func(ns string) []*corev1.Service {
	return func(ns string) []*corev1.Service {
		var out []*corev1.Service
		for ref, raw := range store.List(storeServices) {
			if ref.Namespace != ns && (ref.Namespace != "default" || ref.Name != "kubernetes") {
				continue
			}
			svc := new(corev1.Service)
			if err := json.Unmarshal(raw, svc); err != nil {
				log.Warn("stored service does not decode; no variables for it", "namespace", ref.Namespace, "name", ref.Name, "err", err)
				continue
			}
			out = append(out, svc)
		}
		return out
	}
}
