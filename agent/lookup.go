package agent

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/pods"
	"github.com/bramble-edge/bramble/mqtt"
)

// Lookup resolves the ConfigMaps and Secrets pods reference from the local
// store, so pods start without the server; it is a pods.Lookup.
func (s *Store) Lookup(_ context.Context, kind, namespace, name string) (map[string][]byte, error) {
	switch kind {
	case pods.KindConfigMap:
		var cm corev1.ConfigMap
		if err := s.decode(mqtt.ObjectRef{Resource: "configmaps", Namespace: namespace, Name: name}, &cm); err != nil {
			return nil, err
		}
		out := make(map[string][]byte, len(cm.Data)+len(cm.BinaryData))
		for k, v := range cm.Data {
			out[k] = []byte(v)
		}
		for k, v := range cm.BinaryData {
			out[k] = v
		}
		return out, nil
	case pods.KindSecret:
		var sec corev1.Secret
		if err := s.decode(mqtt.ObjectRef{Resource: "secrets", Namespace: namespace, Name: name}, &sec); err != nil {
			return nil, err
		}
		out := make(map[string][]byte, len(sec.Data)+len(sec.StringData))
		for k, v := range sec.Data {
			out[k] = v
		}
		for k, v := range sec.StringData {
			out[k] = []byte(v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("lookup %s %s/%s: kind must be ConfigMap or Secret", kind, namespace, name)
}

// decode reads one stored object into v; a missing one wraps
// pods.ErrNotFound.
func (s *Store) decode(ref mqtt.ObjectRef, v any) error {
	raw, ok := s.Get(ref)
	if !ok {
		return fmt.Errorf("%s: %w", ref, pods.ErrNotFound)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %w", ref, err)
	}
	return nil
}
