package api

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const benchDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},
"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}],
"resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"500m","memory":"128Mi"}},
"env":[{"name":"MODE","value":"prod"}]}]}}}}`

func BenchmarkDecodeJSONDeployment(b *testing.B) {
	r := res(b, "Deployment")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := DecodeJSON(r, []byte(benchDeployment), true); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCreateDeployment(b *testing.B) {
	r := res(b, "Deployment")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		obj, _, err := DecodeJSON(r, []byte(benchDeployment), true)
		if err != nil {
			b.Fatal(err)
		}
		obj.SetUID("u1")
		PrepareForCreate(r, obj)
		if errs := ValidateCreate(r, obj); len(errs) > 0 {
			b.Fatal(errs)
		}
		if _, err := Encode(obj); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeProtobufConfigMap(b *testing.B) {
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "cfg", Namespace: "default"}, Data: map[string]string{"a": "1", "b": "2"}}
	body := protobufBody(b, cm)
	r := res(b, "ConfigMap")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := DecodeProtobuf(r, body); err != nil {
			b.Fatal(err)
		}
	}
}

func benchPods(b *testing.B, n int) []Object {
	b.Helper()
	objs := make([]Object, n)
	for i := range objs {
		p := decodeYAML(b, "Pod", fmt.Sprintf(`
metadata: {name: web-%d, namespace: default, labels: {app: web}}
spec: {nodeName: pi1, containers: [{name: web, image: "nginx:1"}]}
status: {phase: Running, podIP: 10.42.0.%d, containerStatuses: [{name: web, ready: true, state: {running: {}}}]}`, i, i%250))
		p.SetCreationTimestamp(metav1.NewTime(time.Unix(1e9, 0)))
		objs[i] = p
	}
	return objs
}

func BenchmarkFieldSelector100Pods(b *testing.B) {
	objs := benchPods(b, 100)
	r := res(b, "Pod")
	sel, err := ParseFieldSelector(r, "spec.nodeName=pi1,status.phase=Running")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, o := range objs {
			if !sel.Matches(FieldSet(r, o)) {
				b.Fatal("no match")
			}
		}
	}
}
