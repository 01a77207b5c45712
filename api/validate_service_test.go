package api

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestValidateServicesAndFriends(t *testing.T) {
	tests := []struct {
		kind, name, manifest string
		want                 []string
	}{
		{"Service", "valid", "metadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80}]}", nil},
		{"Service", "name", "metadata: {name: 1web}\nspec: {ports: [{port: 80}]}", []string{"metadata.name: Invalid value: \"1web\""}},
		{"Service", "no ports", "metadata: {name: s}\nspec: {selector: {app: web}}", []string{"spec.ports: Required value"}},
		{"Service", "headless without ports", "metadata: {name: s}\nspec: {clusterIP: None}", nil},
		{"Service", "unnamed", "metadata: {name: s}\nspec: {ports: [{port: 80}, {port: 443}]}",
			[]string{"spec.ports[0].name: Required value", "spec.ports[1].name: Required value"}},
		{"Service", "duplicate", "metadata: {name: s}\nspec: {ports: [{name: a, port: 80}, {name: a, port: 80}]}",
			[]string{`spec.ports[1].name: Duplicate value: "a"`, `spec.ports[1]: Duplicate value: "80/TCP"`}},
		{"Service", "ranges", "metadata: {name: s}\nspec: {ports: [{port: 70000, targetPort: 70001, protocol: ICMP}]}",
			[]string{"spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
				"spec.ports[0].targetPort: Invalid value: 70001", `spec.ports[0].protocol: Unsupported value: "ICMP"`}},
		{"Service", "nodePort on ClusterIP", "metadata: {name: s}\nspec: {ports: [{port: 80, nodePort: 30080}]}",
			[]string{"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"}},
		{"Service", "headless NodePort", "metadata: {name: s}\nspec: {type: NodePort, clusterIP: None, ports: [{port: 80}]}",
			[]string{`spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`}},
		{"Service", "bad IP", "metadata: {name: s}\nspec: {clusterIP: 10.43.0.500, ports: [{port: 80}]}",
			[]string{`spec.clusterIPs[0]: Invalid value: "10.43.0.500"`}},
		{"Service", "ExternalName", "metadata: {name: s}\nspec: {type: ExternalName, externalName: db.example.com}", nil},
		{"Service", "ExternalName missing", "metadata: {name: s}\nspec: {type: ExternalName}", []string{"spec.externalName: Required value"}},
		{"Service", "ExternalName with IP", "metadata: {name: s}\nspec: {type: ExternalName, externalName: db, clusterIP: 10.43.0.9}",
			[]string{"spec.clusterIPs: Forbidden: may not be set for ExternalName services"}},
		{"Service", "IPv6", "metadata: {name: s}\nspec: {ipFamilies: [IPv6], ports: [{port: 80}]}",
			[]string{`spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster`}},
		{"Service", "traffic policy", "metadata: {name: s}\nspec: {externalTrafficPolicy: Local, ports: [{port: 80}]}",
			[]string{"may only be set when `type` is 'NodePort' or 'LoadBalancer'"}},
		{"Endpoints", "valid", "metadata: {name: e}\nsubsets: [{addresses: [{ip: 10.42.0.1}], ports: [{port: 80}]}]", nil},
		{"Endpoints", "bad", "metadata: {name: e}\nsubsets: [{addresses: [{ip: x}], ports: [{port: 80}, {port: 81}]}]",
			[]string{`subsets[0].addresses[0].ip: Invalid value: "x"`, "subsets[0].ports[0].name: Required value", "subsets[0].ports[1].name: Required value"}},
		{"EndpointSlice", "bad", "metadata: {name: e}\naddressType: IPv4\nendpoints: [{addresses: ['fe80::1']}]",
			[]string{`endpoints[0].addresses[0]: Invalid value: "fe80::1"`}},
		{"PersistentVolume", "no source", "metadata: {name: v}\nspec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce]}",
			[]string{"spec: Invalid value: 0: must specify exactly one volume type"}},
		{"PersistentVolumeClaim", "no request", "metadata: {name: c}\nspec: {accessModes: [ReadWriteOnce]}",
			[]string{"spec.resources.requests[storage]: Required value"}},
		{"PodTemplate", "no containers", "metadata: {name: p}\ntemplate: {spec: {}}", []string{"template.spec.containers: Required value"}},
	}
	for _, tc := range tests {
		t.Run(tc.kind+" "+tc.name, func(t *testing.T) {
			r, obj := created(t, tc.kind, tc.manifest)
			checkErrors(t, ValidateCreate(r, obj), tc.want...)
		})
	}
}

func TestServiceDefaultsAndUpdates(t *testing.T) {
	r, obj := created(t, "Service", "metadata: {name: s}\nspec: {type: NodePort, ports: [{port: 80, nodePort: 30080}]}")
	s := obj.(*corev1.Service)
	p := s.Spec.Ports[0]
	if p.Protocol != "TCP" || p.TargetPort.IntVal != 80 || s.Spec.SessionAffinity != "None" ||
		s.Spec.ExternalTrafficPolicy != "Cluster" || *s.Spec.IPFamilyPolicy != "SingleStack" || s.Spec.IPFamilies[0] != "IPv4" {
		t.Fatalf("defaults: got %+v", s.Spec)
	}
	s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.43.0.20", []string{"10.43.0.20"}
	s.ResourceVersion = "7"
	// A PUT of the manifest as written keeps the allocated address and port.
	_, put := created(t, "Service", "metadata: {name: s}\nspec: {type: NodePort, ports: [{port: 80}]}")
	put.SetResourceVersion("7")
	PrepareForUpdate(r, put, s)
	if errs := ValidateUpdate(r, put, s); len(errs) > 0 {
		t.Fatalf("update: %v", errs)
	}
	if got := put.(*corev1.Service); got.Spec.ClusterIP != "10.43.0.20" || got.Spec.Ports[0].NodePort != 30080 {
		t.Fatalf("got %s %d, want the allocated 10.43.0.20 30080 kept", got.Spec.ClusterIP, got.Spec.Ports[0].NodePort)
	}
	// Back to ClusterIP: the node port goes, the address stays.
	back := s.DeepCopy()
	back.Spec.Type = corev1.ServiceTypeClusterIP
	PrepareForUpdate(r, back, s)
	checkErrors(t, ValidateUpdate(r, back, s))
	if back.Spec.Ports[0].NodePort != 0 || back.Spec.ExternalTrafficPolicy != "" || back.Spec.ClusterIP != "10.43.0.20" {
		t.Fatalf("NodePort -> ClusterIP: got %+v", back.Spec)
	}
	moved := s.DeepCopy()
	moved.Spec.ClusterIP, moved.Spec.ClusterIPs = "10.43.0.21", nil
	PrepareForUpdate(r, moved, s)
	checkErrors(t, ValidateUpdate(r, moved, s), `spec.clusterIPs[0]: Invalid value: "10.43.0.21": may not change once set`)
}
