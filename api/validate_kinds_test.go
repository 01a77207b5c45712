package api

import (
	"strings"
	"testing"
)

const tmpl = `
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1"}]`

func TestValidateWorkloads(t *testing.T) {
	sel := "\n  selector: {matchLabels: {app: web}}"
	tests := []struct {
		kind, name, manifest string
		want                 []string
	}{
		{"Deployment", "valid", "metadata: {name: d}\nspec:" + sel + tmpl, nil},
		{"Deployment", "no selector", "metadata: {name: d}\nspec:" + tmpl, []string{"spec.selector: Required value"}},
		{"Deployment", "empty selector", "metadata: {name: d}\nspec:\n  selector: {}" + tmpl,
			[]string{"empty selector is invalid for deployment"}},
		{"Deployment", "mismatch", "metadata: {name: d}\nspec:\n  selector: {matchLabels: {app: db}}" + tmpl,
			[]string{"spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`"}},
		{"Deployment", "negative replicas", "metadata: {name: d}\nspec:\n  replicas: -1" + sel + tmpl,
			[]string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"Deployment", "restart never", "metadata: {name: d}\nspec:" + sel + tmpl + "\n      restartPolicy: Never",
			[]string{`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`}},
		{"Deployment", "recreate with rolling", "metadata: {name: d}\nspec:\n  strategy: {type: Recreate, rollingUpdate: {maxSurge: 1}}" + sel + tmpl,
			[]string{"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"}},
		{"Deployment", "both zero", "metadata: {name: d}\nspec:\n  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 0%}}" + sel + tmpl,
			[]string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"0%\": may not be 0 when `maxSurge` is 0"}},
		{"Deployment", "over 100%", "metadata: {name: d}\nspec:\n  strategy: {rollingUpdate: {maxUnavailable: 150%}}" + sel + tmpl,
			[]string{"must not be greater than 100%"}},
		{"Deployment", "bad percent", "metadata: {name: d}\nspec:\n  strategy: {rollingUpdate: {maxSurge: lots}}" + sel + tmpl,
			[]string{`spec.strategy.rollingUpdate.maxSurge: Invalid value: "lots"`}},
		{"Deployment", "deadline", "metadata: {name: d}\nspec:\n  minReadySeconds: 10\n  progressDeadlineSeconds: 5" + sel + tmpl,
			[]string{"spec.progressDeadlineSeconds: Invalid value: 5: must be greater than minReadySeconds"}},
		{"Deployment", "bad template", "metadata: {name: d}\nspec:" + sel + tmpl + "\n      volumes: [{name: v}, {name: v}]",
			[]string{`spec.template.spec.volumes[1].name: Duplicate value: "v"`}},
		{"ReplicaSet", "valid", "metadata: {name: r}\nspec:" + sel + tmpl, nil},
		{"ReplicaSet", "no selector", "metadata: {name: r}\nspec:" + tmpl, []string{"spec.selector: Required value"}},
		{"DaemonSet", "valid", "metadata: {name: ds}\nspec:" + sel + tmpl, nil},
		{"DaemonSet", "mismatch", "metadata: {name: ds}\nspec:\n  selector: {matchExpressions: [{key: app, operator: In, values: [db]}]}" + tmpl,
			[]string{"`selector` does not match template `labels`"}},
		{"DaemonSet", "strategy", "metadata: {name: ds}\nspec:\n  updateStrategy: {type: Sometimes}" + sel + tmpl,
			[]string{`spec.updateStrategy.type: Unsupported value: "Sometimes"`}},
		{"Job", "valid", "metadata: {name: j}\nspec:" + tmpl + "\n      restartPolicy: Never", nil},
		{"Job", "restart always", "metadata: {name: j}\nspec:" + tmpl,
			[]string{`spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"`}},
		{"Job", "user selector", "metadata: {name: j}\nspec:" + sel + tmpl + "\n      restartPolicy: Never",
			[]string{"spec.selector: Invalid value: \"app=web,batch.kubernetes.io/controller-uid=uid-1\": `selector` not auto-generated"}},
		{"Job", "manual selector", "metadata: {name: j}\nspec:\n  manualSelector: true" + sel + tmpl + "\n      restartPolicy: OnFailure", nil},
		{"Job", "negative", "metadata: {name: j}\nspec:\n  backoffLimit: -1\n  activeDeadlineSeconds: 0" + tmpl + "\n      restartPolicy: Never",
			[]string{"spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0", "spec.activeDeadlineSeconds: Invalid value: 0: must be greater than 0"}},
		{"Job", "indexed", "metadata: {name: j}\nspec:\n  completionMode: Indexed\n  parallelism: 2" + tmpl + "\n      restartPolicy: Never",
			[]string{"spec.completions: Required value: when completion mode is Indexed"}},
		{"Job", "long name", "metadata: {name: " + strings.Repeat("j", 64) + "}\nspec:" + tmpl + "\n      restartPolicy: Never",
			[]string{"must be no more than 63 characters"}},
	}
	for _, tc := range tests {
		t.Run(tc.kind+" "+tc.name, func(t *testing.T) {
			r, obj := created(t, tc.kind, tc.manifest)
			errs := ValidateCreate(r, obj)
			if tc.name == "long name" {
				// the name, and the job-name labels on the job and its template
				if len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), tc.want[0]) {
					t.Errorf("got %v, want errors containing %q", errs, tc.want[0])
				}
				return
			}
			checkErrors(t, errs, tc.want...)
		})
	}
}

func TestValidateWorkloadUpdates(t *testing.T) {
	sel := "\n  selector: {matchLabels: {app: web}}"
	tests := []struct {
		kind, name, manifest, change string
		want                         []string
	}{
		{"Deployment", "scale", "metadata: {name: d}\nspec:" + sel + tmpl, "spec: {replicas: 4}", nil},
		{"Deployment", "selector", "metadata: {name: d}\nspec:" + sel + tmpl,
			"spec: {selector: {matchLabels: {tier: x}}, template: {metadata: {labels: {tier: x}}}}",
			[]string{"spec.selector: Invalid value: \"app=web,tier=x\": field is immutable"}},
		{"DaemonSet", "selector", "metadata: {name: d}\nspec:" + sel + tmpl,
			"spec: {selector: {matchLabels: {tier: x}}, template: {metadata: {labels: {tier: x}}}}", []string{"spec.selector: Invalid value"}},
		{"ReplicaSet", "template", "metadata: {name: r}\nspec:" + sel + tmpl,
			"spec: {template: {spec: {containers: [{name: web, image: 'nginx:2'}]}}}", nil},
		{"Job", "template", "metadata: {name: j}\nspec:" + tmpl + "\n      restartPolicy: Never",
			"spec: {template: {spec: {containers: [{name: web, image: 'nginx:2'}]}}}", []string{"spec.template: Invalid value: field is immutable"}},
		{"Job", "suspend", "metadata: {name: j}\nspec:" + tmpl + "\n      restartPolicy: Never", "spec: {suspend: true}", nil},
		{"ConfigMap", "immutable data", "metadata: {name: c}\nimmutable: true\ndata: {a: b}", "data: {a: c}",
			[]string{"data: Forbidden: field is immutable when `immutable` is set"}},
		{"ConfigMap", "unset immutable", "metadata: {name: c}\nimmutable: true\ndata: {a: b}", "immutable: false",
			[]string{"immutable: Forbidden"}},
		{"ConfigMap", "mutable", "metadata: {name: c}\ndata: {a: b}", "data: {a: c}", nil},
		{"Secret", "type", "metadata: {name: s}\ndata: {a: Yg==}", "type: kubernetes.io/basic-auth\ndata: {username: dQ==}",
			[]string{`type: Invalid value: "kubernetes.io/basic-auth": field is immutable`}},
		{"Secret", "immutable", "metadata: {name: s}\nimmutable: true\ndata: {a: Yg==}", "data: {a: Yw==}",
			[]string{"data: Forbidden: field is immutable when `immutable` is set"}},
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

func TestValidateOtherKinds(t *testing.T) {
	tests := []struct {
		kind, name, manifest string
		want                 []string
	}{
		{"Namespace", "valid", "metadata: {name: team-a}", nil},
		{"Namespace", "subdomain name", "metadata: {name: team.a}", []string{`metadata.name: Invalid value: "team.a": must not contain dots`}},
		{"Namespace", "namespaced", "metadata: {name: a, namespace: b}", []string{"metadata.namespace: Forbidden: not allowed on this type"}},
		{"Node", "valid", "metadata: {name: pi-4.local}\nspec: {podCIDR: 10.42.0.0/24, taints: [{key: k, effect: NoSchedule}]}", nil},
		{"Node", "bad name", "metadata: {name: Pi_4}", []string{`metadata.name: Invalid value: "Pi_4"`}},
		{"Node", "taint", "metadata: {name: \"n\"}\nspec: {taints: [{key: k, effect: Never}, {key: k, effect: NoSchedule}, {key: k, effect: NoSchedule}]}",
			[]string{`spec.taints[0].effect: Unsupported value: "Never"`, `spec.taints[2]: Duplicate value: "k:NoSchedule"`}},
		{"Node", "cidr", "metadata: {name: \"n\"}\nspec: {podCIDR: 10.42.0.0}", []string{"spec.podCIDR: Invalid value"}},
		{"ConfigMap", "valid", "metadata: {name: c}\ndata: {a.b_c-d: x}\nbinaryData: {bin: AA==}", nil},
		{"ConfigMap", "bad key", "metadata: {name: c}\ndata: {'a/b': x}", []string{`data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters`}},
		{"ConfigMap", "dup key", "metadata: {name: c}\ndata: {a: x}\nbinaryData: {a: AA==}", []string{`binaryData[a]: Invalid value: "a": duplicate of key present in data`}},
		{"ConfigMap", "too big", "metadata: {name: c}\ndata: {a: " + strings.Repeat("x", MaxDataBytes+1) + "}", []string{"Too long: may not be more than 1048576 bytes"}},
		{"Secret", "valid", "metadata: {name: s}\nstringData: {password: x}", nil},
		{"Secret", "tls", "metadata: {name: s}\ntype: kubernetes.io/tls\ndata: {tls.crt: AA==}", []string{"data[tls.key]: Required value"}},
		{"Secret", "bad key", "metadata: {name: s}\nstringData: {'a b': x}", []string{`data[a b]: Invalid value: "a b"`}},
		{"Lease", "valid", "metadata: {name: l}\nspec: {holderIdentity: a, leaseDurationSeconds: 15}", nil},
		{"Lease", "duration", "metadata: {name: l}\nspec: {leaseDurationSeconds: 0, leaseTransitions: -1}",
			[]string{"spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0", "spec.leaseTransitions: Invalid value: -1"}},
		{"Event", "valid", "metadata: {name: e}\ninvolvedObject: {kind: Pod, name: p, namespace: default}\ntype: Normal", nil},
		{"Event", "namespace", "metadata: {name: e}\ninvolvedObject: {kind: Pod, name: p, namespace: other}\ntype: Loud",
			[]string{`involvedObject.namespace: Invalid value: "other": does not match event.namespace`, `type: Unsupported value: "Loud"`}},
	}
	for _, tc := range tests {
		t.Run(tc.kind+" "+tc.name, func(t *testing.T) {
			r, obj := created(t, tc.kind, tc.manifest)
			checkErrors(t, ValidateCreate(r, obj), tc.want...)
		})
	}
}

func TestValidateStatusUpdate(t *testing.T) {
	r, old := created(t, "Deployment", "metadata: {name: d}\nspec:\n  selector: {matchLabels: {app: web}}"+tmpl)
	old.SetResourceVersion("2")
	obj := mergeYAML(t, r, old.DeepCopyObject().(Object), "status: {replicas: -1, readyReplicas: 1}")
	PrepareForStatusUpdate(r, obj, old)
	checkErrors(t, ValidateStatusUpdate(r, obj, old), "status.replicas: Invalid value: -1: must be greater than or equal to 0")
}
