package proxy

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// Decode reads Services and EndpointSlices as the agent's local store
// holds them (JSON, as received over MQTT) into in. An object that does
// not decode is left out and reported, naming it: one bad object must not
// take every service down.
func Decode(in *Input, services, slices map[string][]byte) []error {
	var errs []error
	for name, raw := range services {
		var s corev1.Service
		if err := json.Unmarshal(raw, &s); err != nil {
			errs = append(errs, fmt.Errorf("service %s: %w", name, err))
			continue
		}
		in.Services = append(in.Services, &s)
	}
	for name, raw := range slices {
		var s discoveryv1.EndpointSlice
		if err := json.Unmarshal(raw, &s); err != nil {
			errs = append(errs, fmt.Errorf("endpointslice %s: %w", name, err))
			continue
		}
		in.Slices = append(in.Slices, &s)
	}
	return errs
}
