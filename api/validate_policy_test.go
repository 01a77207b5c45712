package api

import "testing"

func TestValidatePolicyKinds(t *testing.T) {
	tests := []struct {
		kind, name, manifest string
		want                 []string
	}{
		{"ResourceQuota", "valid", "metadata: {name: q}\nspec: {hard: {pods: '2', requests.cpu: 500m, count/deployments.apps: '3'}}", nil},
		{"ResourceQuota", "unknown name", "metadata: {name: q}\nspec: {hard: {bananas: '2'}}",
			[]string{`spec.hard[bananas]: Invalid value: "bananas": must be a standard resource for quota`}},
		{"ResourceQuota", "fraction of a pod", "metadata: {name: q}\nspec: {hard: {pods: 500m}}",
			[]string{`spec.hard[pods]: Invalid value: "500m": must be an integer`}},
		{"ResourceQuota", "negative", "metadata: {name: q}\nspec: {hard: {cpu: '-1'}}",
			[]string{`spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0`}},
		{"ResourceQuota", "scopes", "metadata: {name: q}\nspec: {hard: {pods: '1'}, scopes: [BestEffort, NotBestEffort, Sometimes]}",
			[]string{`spec.scopes[2]: Invalid value: "Sometimes": unsupported scope`, "conflicting scopes"}},
		{"ResourceQuota", "selector", "metadata: {name: q}\nspec: {hard: {pods: '1'}, scopeSelector: {matchExpressions: [{scopeName: PriorityClass, operator: In}]}}",
			[]string{"spec.scopeSelector.matchExpressions[0].values: Required value"}},
		{"LimitRange", "valid", "metadata: {name: l}\nspec: {limits: [{type: Container, min: {cpu: 10m}, max: {cpu: '1'}, maxLimitRequestRatio: {cpu: '4'}}]}", nil},
		{"LimitRange", "min over max", "metadata: {name: l}\nspec: {limits: [{type: Container, min: {cpu: '2'}, max: {cpu: '1'}}]}",
			[]string{"spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 is greater than max value 1",
				"spec.limits[0].defaultRequest[cpu]: Invalid value: \"2\": min value 2 is greater than default request value 1",
				"spec.limits[0].default[cpu]: Invalid value: \"2\": min value 2 is greater than default value 1"}},
		{"LimitRange", "pod default", "metadata: {name: l}\nspec: {limits: [{type: Pod, default: {cpu: '1'}}]}",
			[]string{"spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"}},
		{"LimitRange", "claim", "metadata: {name: l}\nspec: {limits: [{type: PersistentVolumeClaim, max: {cpu: '1'}}]}",
			[]string{"either minimum or maximum storage value is required"}},
		{"LimitRange", "ratio", "metadata: {name: l}\nspec: {limits: [{type: Container, maxLimitRequestRatio: {cpu: 500m}}]}",
			[]string{"ratio 500m is less than 1"}},
		{"PriorityClass", "valid", "metadata: {name: high}\nvalue: 1000\npreemptionPolicy: Never", nil},
		{"PriorityClass", "too high", "metadata: {name: high}\nvalue: 2000000000",
			[]string{"value: Forbidden: maximum allowed value of a user defined priority is 1000000000"}},
		{"PriorityClass", "system name", "metadata: {name: system-mine}\nvalue: 1",
			[]string{"metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"}},
		{"PriorityClass", "policy", "metadata: {name: p}\nvalue: 1\npreemptionPolicy: Often",
			[]string{`preemptionPolicy: Unsupported value: "Often"`}},
		{"RuntimeClass", "valid", "metadata: {name: gvisor}\nhandler: runsc\noverhead: {podFixed: {cpu: 100m}}", nil},
		{"RuntimeClass", "no handler", "metadata: {name: gvisor}", []string{"handler: Required value"}},
		{"RuntimeClass", "bad handler", "metadata: {name: gvisor}\nhandler: Run_SC", []string{`handler: Invalid value: "Run_SC"`}},
		{"PodDisruptionBudget", "valid", "metadata: {name: p}\nspec: {maxUnavailable: 25%, selector: {matchLabels: {app: web}}}", nil},
		{"PodDisruptionBudget", "both", "metadata: {name: p}\nspec: {minAvailable: 1, maxUnavailable: 1}",
			[]string{"minAvailable and maxUnavailable cannot be both set"}},
		{"PodDisruptionBudget", "percent", "metadata: {name: p}\nspec: {minAvailable: 150%}",
			[]string{`spec.minAvailable: Invalid value: "150%": must not be greater than 100%`}},
		{"PodDisruptionBudget", "negative", "metadata: {name: p}\nspec: {maxUnavailable: -1}",
			[]string{"spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"}},
		{"PodDisruptionBudget", "policy", "metadata: {name: p}\nspec: {unhealthyPodEvictionPolicy: Sometimes}",
			[]string{`spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes"`}},
	}
	for _, tc := range tests {
		t.Run(tc.kind+" "+tc.name, func(t *testing.T) {
			r, obj := created(t, tc.kind, tc.manifest)
			Default(obj)
			checkErrors(t, ValidateCreate(r, obj), tc.want...)
		})
	}
}

func TestValidatePolicyUpdates(t *testing.T) {
	tests := []struct {
		kind, name, manifest, change string
		want                         []string
	}{
		{"PriorityClass", "value", "metadata: {name: p}\nvalue: 1", "value: 2", []string{"value: Forbidden: may not be changed in an update."}},
		{"PriorityClass", "description", "metadata: {name: p}\nvalue: 1", "description: hi", nil},
		{"RuntimeClass", "handler", "metadata: {name: r}\nhandler: runc", "handler: crun", []string{`handler: Invalid value: "crun": field is immutable`}},
	}
	for _, tc := range tests {
		t.Run(tc.kind+" "+tc.name, func(t *testing.T) {
			r, old := created(t, tc.kind, tc.manifest)
			old.SetResourceVersion("7")
			obj := mergeYAML(t, r, old.DeepCopyObject().(Object), tc.change)
			PrepareForUpdate(r, obj, old)
			checkErrors(t, ValidateUpdate(r, obj, old), tc.want...)
		})
	}
}
