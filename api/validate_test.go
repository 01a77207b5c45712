package api

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// created runs a manifest through the create path the server uses.
func created(t *testing.T, kind, manifest string) (*Resource, Object) {
	t.Helper()
	r := res(t, kind)
	obj := decodeYAML(t, kind, manifest)
	if r.Namespaced && obj.GetNamespace() == "" {
		obj.SetNamespace("default")
	}
	if obj.GetName() == "" && obj.GetGenerateName() != "" {
		obj.SetName(GenerateName(obj.GetGenerateName()))
	}
	obj.SetUID("uid-1")
	PrepareForCreate(r, obj)
	return r, obj
}

// checkErrors wants exactly the listed messages (each a substring of one
// error, in any order); none means the object must be valid.
func checkErrors(t *testing.T, errs field.ErrorList, want ...string) {
	t.Helper()
	if len(errs) != len(want) {
		t.Errorf("got %d errors %v, want %d: %q", len(errs), errs, len(want), want)
	}
	for _, w := range want {
		found := false
		for _, e := range errs {
			if strings.Contains(e.Error(), w) {
				found = true
			}
		}
		if !found {
			t.Errorf("got errors %v, want one containing %q", errs, w)
		}
	}
}

const goodPod = `
metadata: {name: p, labels: {app: x}}
spec:
  containers:
  - name: c
    image: nginx:1
    ports: [{containerPort: 80, name: http}]
    env: [{name: A, value: b}, {name: B, valueFrom: {configMapKeyRef: {name: cm, key: k}}}]
    resources: {requests: {cpu: 100m}, limits: {cpu: "1", memory: 64Mi}}
    volumeMounts: [{name: data, mountPath: /data}]
    readinessProbe: {tcpSocket: {port: http}}
  volumes: [{name: data, emptyDir: {}}, {name: cfg, configMap: {name: cm, items: [{key: a, path: a.txt}]}}]
  tolerations: [{key: k, operator: Exists, effect: NoSchedule}]
`

func TestValidatePod(t *testing.T) {
	tests := []struct {
		name, manifest string
		want           []string
	}{
		{"valid", goodPod, nil},
		{"generateName", "metadata: {generateName: p-}\nspec: {containers: [{name: c, image: x}]}", nil},
		{"no name", "spec: {containers: [{name: c, image: x}]}", []string{"metadata.name: Required value: name or generateName is required"}},
		{"bad name", "metadata: {name: Bad_Name}\nspec: {containers: [{name: c, image: x}]}", []string{`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`}},
		{"bad label", "metadata: {name: p, labels: {'a b': c}}\nspec: {containers: [{name: c, image: x}]}", []string{`metadata.labels: Invalid value: "a b"`}},
		{"no containers", "metadata: {name: p}\nspec: {}", []string{"spec.containers: Required value"}},
		{"no image", "metadata: {name: p}\nspec: {containers: [{name: c}]}", []string{"spec.containers[0].image: Required value"}},
		{"image space", "metadata: {name: p}\nspec: {containers: [{name: c, image: 'a b'}]}", []string{`spec.containers[0].image: Invalid value: "a b": must not contain whitespace`}},
		{"image edge space", "metadata: {name: p}\nspec: {containers: [{name: c, image: ' a'}]}", []string{"must not have leading or trailing whitespace"}},
		{"dup container", "metadata: {name: p}\nspec: {initContainers: [{name: c, image: x}], containers: [{name: c, image: x}]}", []string{`spec.containers[0].name: Duplicate value: "c"`}},
		{"container name", "metadata: {name: p}\nspec: {containers: [{name: C_1, image: x}]}", []string{`spec.containers[0].name: Invalid value: "C_1"`}},
		{"port range", "metadata: {name: p}\nspec: {containers: [{name: c, image: x, ports: [{containerPort: 70000}]}]}", []string{"spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"}},
		{"port zero", "metadata: {name: p}\nspec: {containers: [{name: c, image: x, ports: [{containerPort: 0}]}]}", []string{"spec.containers[0].ports[0].containerPort: Required value"}},
		{"protocol", "metadata: {name: p}\nspec: {containers: [{name: c, image: x, ports: [{containerPort: 1, protocol: ICMP}]}]}", []string{`protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`}},
		{"requests over limits", "metadata: {name: p}\nspec: {containers: [{name: c, image: x, resources: {requests: {cpu: 2}, limits: {cpu: 1}}}]}", []string{`spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1`}},
		{"negative quantity", "metadata: {name: p}\nspec: {containers: [{name: c, image: x, resources: {requests: {memory: -1}}}]}", []string{"resources.requests[memory]: Invalid value: \"-1\": must be greater than or equal to 0"}},
		{"unstorable quantity", "metadata: {name: p}\nspec: {containers: [{name: c, image: x, resources: {limits: {memory: '1000000000000000000000000000000'}}}]}", []string{`resources.limits[memory]: Invalid value: "1e+30": cannot be stored exactly`, `resources.requests[memory]: Invalid value: "1e+30": cannot be stored exactly`}},
		{"mount unknown volume", "metadata: {name: p}\nspec: {containers: [{name: c, image: x, volumeMounts: [{name: v, mountPath: /v}]}]}", []string{`spec.containers[0].volumeMounts[0].name: Not found: "v"`}},
		{"mount path dup", "metadata: {name: p}\nspec: {volumes: [{name: v}], containers: [{name: c, image: x, volumeMounts: [{name: v, mountPath: /v}, {name: v, mountPath: /v}]}]}", []string{"volumeMounts[1].mountPath: Invalid value: \"/v\": must be unique"}},
		{"two volume sources", "metadata: {name: p}\nspec: {volumes: [{name: v, emptyDir: {}, hostPath: {path: /x}}], containers: [{name: c, image: x}]}", []string{"spec.volumes[0]: Forbidden: may not specify more than 1 volume type"}},
		{"dup volume", "metadata: {name: p}\nspec: {volumes: [{name: v}, {name: v}], containers: [{name: c, image: x}]}", []string{`spec.volumes[1].name: Duplicate value: "v"`}},
		{"configmap volume name", "metadata: {name: p}\nspec: {volumes: [{name: v, configMap: {}}], containers: [{name: c, image: x}]}", []string{"spec.volumes[0].configMap.name: Required value"}},
		{"item path", "metadata: {name: p}\nspec: {volumes: [{name: v, secret: {secretName: s, items: [{key: k, path: ../x}]}}], containers: [{name: c, image: x}]}", []string{"spec.volumes[0].secret.items[0].path: Invalid value: \"../x\": must not contain '..'"}},
		{"restart policy", "metadata: {name: p}\nspec: {restartPolicy: Sometimes, containers: [{name: c, image: x}]}", []string{`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`}},
		{"env both", "metadata: {name: p}\nspec: {containers: [{name: c, image: x, env: [{name: A, value: v, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]}]}", []string{"env[0].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty"}},
		{"env key ref", "metadata: {name: p}\nspec: {containers: [{name: c, image: x, env: [{name: A, valueFrom: {secretKeyRef: {name: s}}}]}]}", []string{"env[0].valueFrom.secretKeyRef.key: Required value"}},
		{"toleration", "metadata: {name: p}\nspec: {tolerations: [{operator: Equal, value: x}], containers: [{name: c, image: x}]}", []string{"spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty"}},
		{"probe handler", "metadata: {name: p}\nspec: {containers: [{name: c, image: x, livenessProbe: {periodSeconds: 3}}]}", []string{"spec.containers[0].livenessProbe: Required value: must specify a handler type"}},
		{"deadline", "metadata: {name: p}\nspec: {activeDeadlineSeconds: 0, containers: [{name: c, image: x}]}", []string{"spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"}},
		{"toleration key", "metadata: {name: p}\nspec: {tolerations: [{key: ok}, {key: 'a b', operator: Exists}], containers: [{name: c, image: x}]}", []string{`spec.tolerations[1].key: Invalid value: "a b": name part must consist of alphanumeric characters`}},
		{"toleration effect", "metadata: {name: p}\nspec: {tolerations: [{key: k, effect: Sometimes}], containers: [{name: c, image: x}]}", []string{`spec.tolerations[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`}},
		{"toleration seconds", "metadata: {name: p}\nspec: {tolerations: [{key: k, effect: NoSchedule, tolerationSeconds: 5}], containers: [{name: c, image: x}]}", []string{`spec.tolerations[0].effect: Invalid value: "NoSchedule": effect must be 'NoExecute' when ` + "`tolerationSeconds` is set"}},
		{"toleration exists value", "metadata: {name: p}\nspec: {tolerations: [{key: k, operator: Exists, value: v}], containers: [{name: c, image: x}]}", []string{`spec.tolerations[0].operator: Invalid value: "v": value must be empty when ` + "`operator` is 'Exists'"}},
		{"resource name", "metadata: {name: p}\nspec: {containers: [{name: c, image: x, resources: {limits: {'a b': 1}}}]}", []string{`spec.containers[0].resources.limits[a b]: Invalid value: "a b": name part must consist of alphanumeric characters`, `spec.containers[0].resources.requests[a b]: Invalid value: "a b": name part`}},
		{"init container", "metadata: {name: p}\nspec: {initContainers: [{name: i}], containers: [{name: c, image: x}]}", []string{"spec.initContainers[0].image: Required value"}},
		{"ninth container", "metadata: {name: p}\nspec: {containers: [{name: c0, image: x}, {name: c1, image: x}, {name: c2, image: x}, {name: c3, image: x}, {name: c4, image: x}, {name: c5, image: x}, {name: c6, image: x}, {name: c7, image: x}, {name: c8}]}", []string{"spec.containers[8].image: Required value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, obj := created(t, "Pod", tc.manifest)
			checkErrors(t, ValidateCreate(r, obj), tc.want...)
		})
	}
}

func TestValidatePodUpdate(t *testing.T) {
	tests := []struct {
		name   string
		change string
		want   []string
	}{
		{"image", "spec: {containers: [{name: c, image: nginx:2}]}", nil},
		{"add toleration", "spec: {tolerations: [{key: k, operator: Exists, effect: NoSchedule}, {key: j, operator: Exists}]}", nil},
		{"deadline set", "spec: {activeDeadlineSeconds: 30}", nil},
		{"labels", "metadata: {labels: {x: 'y'}}", nil},
		{"env", "spec: {containers: [{name: c, env: [{name: X, value: 'y'}]}]}", []string{"spec: Forbidden: pod updates may not change fields other than"}},
		{"remove toleration", "spec: {tolerations: []}", []string{"spec.tolerations: Forbidden"}},
		{"empty image", "spec: {containers: [{name: c, image: ''}]}", []string{"spec.containers[0].image: Required value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, old := created(t, "Pod", goodPod)
			old.SetResourceVersion("3")
			obj := old.DeepCopyObject().(Object)
			obj = mergeYAML(t, r, obj, tc.change)
			PrepareForUpdate(r, obj, old)
			checkErrors(t, ValidateUpdate(r, obj, old), tc.want...)
		})
	}
}

func TestValidateUpdateMeta(t *testing.T) {
	r, old := created(t, "ConfigMap", "metadata: {name: c}\ndata: {a: b}")
	old.SetResourceVersion("3")
	obj := old.DeepCopyObject().(Object)
	obj.SetName("d")
	obj.SetUID("other")
	checkErrors(t, ValidateUpdate(r, obj, old), `metadata.name: Invalid value: "d": field is immutable`,
		`metadata.uid: Invalid value: "other": field is immutable`)
	obj = old.DeepCopyObject().(Object)
	obj.SetResourceVersion("")
	checkErrors(t, ValidateUpdate(r, obj, old), "metadata.resourceVersion: Invalid value: \"\": must be specified for an update")
}

// mergeYAML applies a strategic-merge patch written in YAML to obj, as
// kubectl apply or set image would, and returns the result.
func mergeYAML(t *testing.T, r *Resource, obj Object, patch string) Object {
	t.Helper()
	orig, err := Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	pj, err := YAMLToJSON([]byte(patch), true)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := strategicpatch.StrategicMergePatch(orig, pj, r.New())
	if err != nil {
		t.Fatalf("patch %s: %v", patch, err)
	}
	out, _, err := DecodeJSON(r, merged, true)
	if err != nil {
		t.Fatalf("decode patched: %v", err)
	}
	return out
}
