package api

import "testing"

// affinityPod is a pod whose spec.affinity.nodeAffinity is the given
// YAML flow mapping.
func affinityPod(nodeAffinity string) string {
	return "metadata: {name: p}\nspec: {containers: [{name: c, image: x}], affinity: {nodeAffinity: " + nodeAffinity + "}}"
}

// requiredTerm wraps one node selector term in required node affinity.
func requiredTerm(term string) string {
	return affinityPod("{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [" + term + "]}}")
}

func TestValidateNodeAffinity(t *testing.T) {
	const (
		req    = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
		expr0  = req + "[0].matchExpressions[0]"
		field0 = req + "[0].matchFields[0]"
		pref0  = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
	)
	tests := []struct {
		name, manifest string
		want           []string
	}{
		{"every operator", requiredTerm(`{matchExpressions: [{key: zone, operator: In, values: [a]}, {key: zone, operator: NotIn, values: [b]},
			{key: gpu, operator: Exists}, {key: x, operator: DoesNotExist}, {key: cores, operator: Gt, values: ["2"]},
			{key: cores, operator: Lt, values: ["9"]}], matchFields: [{key: metadata.name, operator: NotIn, values: [pi-1]}]}`), nil},
		{"empty term", requiredTerm("{}"), nil},
		{"preferred", affinityPod(`{preferredDuringSchedulingIgnoredDuringExecution: [
			{weight: 1, preference: {matchExpressions: [{key: zone, operator: In, values: [a]}]}},
			{weight: 100, preference: {matchFields: [{key: metadata.name, operator: In, values: [pi-1]}]}}]}`), nil},
		{"NotIn without values", requiredTerm("{matchExpressions: [{key: zone, operator: NotIn}]}"),
			[]string{expr0 + ".values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
		{"NotIn with empty values", requiredTerm("{matchExpressions: [{key: zone, operator: NotIn, values: []}]}"),
			[]string{expr0 + ".values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
		{"In without values", requiredTerm("{matchExpressions: [{key: zone, operator: In}]}"),
			[]string{expr0 + ".values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
		{"Exists with values", requiredTerm("{matchExpressions: [{key: zone, operator: Exists, values: [a]}]}"),
			[]string{expr0 + ".values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"}},
		{"Gt with two values", requiredTerm(`{matchExpressions: [{key: cores, operator: Gt, values: ["1", "2"]}]}`),
			[]string{expr0 + ".values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"}},
		{"unknown operator", requiredTerm("{matchExpressions: [{key: zone, operator: Like, values: [a]}]}"),
			[]string{expr0 + `.operator: Invalid value: "Like": not a valid selector operator`}},
		{"bad key", requiredTerm("{matchExpressions: [{key: 'a b', operator: Exists}]}"),
			[]string{expr0 + `.key: Invalid value: "a b"`}},
		{"no terms", affinityPod("{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}"),
			[]string{req + ": Required value: must have at least one node selector term"}},
		{"field NotIn without values", requiredTerm("{matchFields: [{key: metadata.name, operator: NotIn}]}"),
			[]string{field0 + ".values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector"}},
		{"field with two values", requiredTerm("{matchFields: [{key: metadata.name, operator: In, values: [a, b]}]}"),
			[]string{field0 + ".values: Required value: must be only one value"}},
		{"field key", requiredTerm("{matchFields: [{key: metadata.uid, operator: In, values: [a]}]}"),
			[]string{field0 + `.key: Invalid value: "metadata.uid": not a valid field selector key`}},
		{"field operator", requiredTerm("{matchFields: [{key: metadata.name, operator: Exists}]}"),
			[]string{field0 + `.operator: Invalid value: "Exists": not a valid selector operator`}},
		{"field node name", requiredTerm("{matchFields: [{key: metadata.name, operator: In, values: [Pi_1]}]}"),
			[]string{field0 + `.values[0]: Invalid value: "Pi_1": a lowercase RFC 1123 subdomain`}},
		{"preferred weight", affinityPod("{preferredDuringSchedulingIgnoredDuringExecution: [{weight: 0, preference: {}}, {weight: 101, preference: {}}]}"),
			[]string{pref0 + ".weight: Invalid value: 0: must be in the range 1-100",
				"preferredDuringSchedulingIgnoredDuringExecution[1].weight: Invalid value: 101: must be in the range 1-100"}},
		{"preferred NotIn without values", affinityPod("{preferredDuringSchedulingIgnoredDuringExecution: [{weight: 5, preference: {matchExpressions: [{key: zone, operator: NotIn}]}}]}"),
			[]string{pref0 + ".preference.matchExpressions[0].values: Required value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, obj := created(t, "Pod", tc.manifest)
			checkErrors(t, ValidateCreate(r, obj), tc.want...)
		})
	}
}

func TestValidateTemplateNodeAffinity(t *testing.T) {
	const ds = `
metadata: {name: d}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: [{name: c, image: x}]
      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: NotIn}]}]}}}
`
	r, obj := created(t, "DaemonSet", ds)
	checkErrors(t, ValidateCreate(r, obj), "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."+
		"nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'")
}
