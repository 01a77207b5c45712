package api

import (
	"encoding/json"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

func TestPullPolicyFor(t *testing.T) {
	for image, want := range map[string]corev1.PullPolicy{
		"nginx":                            corev1.PullAlways,
		"nginx:latest":                     corev1.PullAlways,
		"nginx:1.27":                       corev1.PullIfNotPresent,
		"registry:5000/app":                corev1.PullAlways,
		"registry:5000/app:v2":             corev1.PullIfNotPresent,
		"registry:5000/app:latest":         corev1.PullAlways,
		"nginx@sha256:0123456789abcdef":    corev1.PullIfNotPresent,
		"nginx:latest@sha256:0123456789ab": corev1.PullIfNotPresent,
	} {
		if got := PullPolicyFor(image); got != want {
			t.Errorf("PullPolicyFor(%q): got %s, want %s", image, got, want)
		}
	}
}

// defaulted decodes a manifest, defaults it and returns it as generic JSON
// for field lookups.
func defaulted(t *testing.T, kind, manifest string) (Object, map[string]any) {
	t.Helper()
	obj := decodeYAML(t, kind, manifest)
	Default(obj)
	data, err := Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return obj, m
}

// lookup follows a dotted path ("spec.containers.0.image") through JSON.
func lookup(m any, path string) any {
	for _, part := range strings.Split(path, ".") {
		switch v := m.(type) {
		case map[string]any:
			m = v[part]
		case []any:
			i := int(part[0] - '0')
			if i >= len(v) {
				return nil
			}
			m = v[i]
		default:
			return nil
		}
	}
	return m
}

func TestDefault(t *testing.T) {
	podSpec := `
    spec:
      hostNetwork: true
      containers:
      - name: c
        image: nginx
        ports: [{containerPort: 80}]
        env: [{name: "N", valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
        livenessProbe: {httpGet: {port: 80}}
        resources: {limits: {cpu: "1"}}
      volumes: [{name: a}, {name: b, configMap: {name: cm}}, {name: h, hostPath: {path: /x}}]`
	template := "  selector: {matchLabels: {app: x}}\n  template:\n    metadata: {labels: {app: x}}\n" + podSpec
	podWant := map[string]any{
		"restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler",
		"terminationGracePeriodSeconds": 30.0, "securityContext": map[string]any{},
		"containers.0.imagePullPolicy": "Always", "containers.0.terminationMessagePath": "/dev/termination-log",
		"containers.0.terminationMessagePolicy": "File", "containers.0.ports.0.protocol": "TCP",
		"containers.0.ports.0.hostPort": 80.0, "containers.0.env.0.valueFrom.fieldRef.apiVersion": "v1",
		"containers.0.livenessProbe.timeoutSeconds": 1.0, "containers.0.livenessProbe.periodSeconds": 10.0,
		"containers.0.livenessProbe.failureThreshold": 3.0, "containers.0.livenessProbe.httpGet.path": "/",
		"containers.0.livenessProbe.httpGet.scheme": "HTTP", "volumes.0.emptyDir": map[string]any{},
		"volumes.1.configMap.defaultMode": 420.0, "volumes.2.hostPath.type": "",
	}
	tests := []struct {
		kind, manifest, prefix string
		want                   map[string]any
	}{
		{"Pod", "metadata: {name: p}\n" + strings.ReplaceAll(podSpec, "\n    ", "\n"), "spec.", podWant},
		{"Pod", "metadata: {name: p}\n" + strings.ReplaceAll(podSpec, "\n    ", "\n"), "", map[string]any{
			"spec.containers.0.resources.requests.cpu": "1"}},
		{"Deployment", "metadata: {name: d}\nspec:\n" + template, "spec.template.spec.", podWant},
		{"Deployment", "metadata: {name: d}\nspec:\n" + template, "spec.", map[string]any{
			"replicas": 1.0, "strategy.type": "RollingUpdate", "strategy.rollingUpdate.maxUnavailable": "25%",
			"strategy.rollingUpdate.maxSurge": "25%", "revisionHistoryLimit": 10.0, "progressDeadlineSeconds": 600.0,
			"template.spec.containers.0.resources.requests": nil}},
		{"Deployment", "metadata: {name: d}\nspec:\n  strategy: {type: Recreate}\n", "spec.", map[string]any{
			"strategy.rollingUpdate": nil}},
		{"ReplicaSet", "metadata: {name: r}\nspec:\n" + template, "spec.", map[string]any{"replicas": 1.0}},
		{"ReplicaSet", "metadata: {name: r}\nspec:\n" + template, "spec.template.spec.", podWant},
		{"DaemonSet", "metadata: {name: ds}\nspec:\n" + template, "spec.", map[string]any{
			"updateStrategy.type": "RollingUpdate", "updateStrategy.rollingUpdate.maxUnavailable": 1.0,
			"updateStrategy.rollingUpdate.maxSurge": 0.0, "revisionHistoryLimit": 10.0}},
		{"DaemonSet", "metadata: {name: ds}\nspec:\n" + template, "spec.template.spec.", podWant},
		{"Job", "metadata: {name: j}\nspec:\n" + template, "spec.", map[string]any{
			"parallelism": 1.0, "completions": 1.0, "backoffLimit": 6.0, "completionMode": "NonIndexed",
			"suspend": false, "manualSelector": false, "podReplacementPolicy": "TerminatingOrFailed"}},
		{"Job", "metadata: {name: j}\nspec: {parallelism: 3}\n", "spec.", map[string]any{
			"parallelism": 3.0, "completions": nil}},
		{"Job", "metadata: {name: j}\nspec: {completions: 5}\n", "spec.", map[string]any{
			"parallelism": 1.0, "completions": 5.0}},
		{"Job", "metadata: {name: j}\nspec:\n" + template, "metadata.", map[string]any{"labels.app": "x"}},
		{"Namespace", "metadata: {name: team}\n", "", map[string]any{
			"status.phase": "Active", "metadata.labels": map[string]any{LabelNamespaceName: "team"}}},
		{"Secret", "metadata: {name: s}\nstringData: {a: hello}\n", "", map[string]any{
			"type": "Opaque", "data.a": "aGVsbG8=", "stringData": nil}},
		{"Node", "metadata: {name: \"n\"}\nstatus: {capacity: {cpu: '4'}}\n", "status.", map[string]any{"allocatable.cpu": "4"}},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			_, m := defaulted(t, tc.kind, tc.manifest)
			for path, want := range tc.want {
				got := lookup(m, tc.prefix+path)
				if !equality.Semantic.DeepEqual(got, want) {
					t.Errorf("%s%s: got %#v, want %#v", tc.prefix, path, got, want)
				}
			}
		})
	}
}

func TestDefaultKeepsSetValuesAndIsIdempotent(t *testing.T) {
	obj := decodeYAML(t, "Deployment", `
metadata: {name: d}
spec:
  replicas: 0
  revisionHistoryLimit: 2
  strategy: {rollingUpdate: {maxSurge: 1}}
  template:
    spec:
      restartPolicy: OnFailure
      containers: [{name: c, image: "nginx:1", imagePullPolicy: Never}]
`)
	Default(obj)
	d := obj.(*appsv1.Deployment)
	if *d.Spec.Replicas != 0 || *d.Spec.RevisionHistoryLimit != 2 || d.Spec.Strategy.RollingUpdate.MaxSurge.IntValue() != 1 {
		t.Errorf("set values changed: replicas %d, history %d, surge %v", *d.Spec.Replicas, *d.Spec.RevisionHistoryLimit,
			d.Spec.Strategy.RollingUpdate.MaxSurge)
	}
	if got := d.Spec.Template.Spec.Containers[0].ImagePullPolicy; got != corev1.PullNever {
		t.Errorf("imagePullPolicy: got %s, want Never", got)
	}
	if got := d.Spec.Strategy.RollingUpdate.MaxUnavailable.String(); got != "25%" {
		t.Errorf("maxUnavailable: got %s, want 25%%", got)
	}
	once := d.DeepCopy()
	Default(d)
	if !equality.Semantic.DeepEqual(once, d) {
		t.Error("second Default changed the object")
	}
	j := &batchv1.Job{Spec: batchv1.JobSpec{PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
		{OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}}}}}}
	Default(j)
	if *j.Spec.PodReplacementPolicy != batchv1.Failed || j.Spec.PodFailurePolicy.Rules[0].OnPodConditions[0].Status != corev1.ConditionTrue {
		t.Errorf("pod failure policy defaults: got %s, %s", *j.Spec.PodReplacementPolicy, j.Spec.PodFailurePolicy.Rules[0].OnPodConditions[0].Status)
	}
}
