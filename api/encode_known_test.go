package api

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// deploymentPod is a pod of a Deployment as it is stored once bound and
// Running: defaulted, with the service account volume, conditions and a
// container status.
func deploymentPod(tb testing.TB) *corev1.Pod {
	tb.Helper()
	p := decodeYAML(tb, "Pod", `
metadata:
  name: fleet-7d9c8b5f4-x2kqz
  generateName: fleet-7d9c8b5f4-
  namespace: default
  uid: 0b1f7e3a-9c1d-4a8e-b2f5-3c6d7e8f9a0b
  labels: {app: fleet, pod-template-hash: 7d9c8b5f4}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: fleet-7d9c8b5f4,
    uid: 5e6f7a8b-1c2d-4e3f-8a9b-0c1d2e3f4a5b, controller: true, blockOwnerDeletion: true}]
spec:
  volumes:
  - name: kube-api-access-abcde
    projected:
      defaultMode: 420
      sources:
      - serviceAccountToken: {expirationSeconds: 3607, path: token}
      - configMap: {name: kube-root-ca.crt, items: [{key: ca.crt, path: ca.crt}]}
      - downwardAPI: {items: [{path: namespace, fieldRef: {apiVersion: v1, fieldPath: metadata.namespace}}]}
  containers:
  - name: app
    image: registry.lan/app:v1
    resources: {requests: {cpu: 10m, memory: 16Mi}}
    volumeMounts: [{name: kube-api-access-abcde, readOnly: true, mountPath: /var/run/secrets/kubernetes.io/serviceaccount}]
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
    imagePullPolicy: IfNotPresent
  restartPolicy: Always
  terminationGracePeriodSeconds: 30
  dnsPolicy: ClusterFirst
  serviceAccountName: default
  serviceAccount: default
  nodeName: hollow-042
  securityContext: {}
  schedulerName: default-scheduler
  tolerations:
  - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  priority: 0
  enableServiceLinks: true
  preemptionPolicy: PreemptLowerPriority
status:
  phase: Running
  conditions:
  - {type: PodReadyToStartContainers, status: "True", lastTransitionTime: "2026-11-28T05:00:01Z"}
  - {type: Initialized, status: "True", lastTransitionTime: "2026-11-28T05:00:00Z"}
  - {type: Ready, status: "True", lastTransitionTime: "2026-11-28T05:00:02Z"}
  - {type: ContainersReady, status: "True", lastTransitionTime: "2026-11-28T05:00:02Z"}
  - {type: PodScheduled, status: "True", lastTransitionTime: "2026-11-28T05:00:00Z"}
  hostIP: 10.0.0.42
  hostIPs: [{ip: 10.0.0.42}]
  podIP: 10.42.3.17
  podIPs: [{ip: 10.42.3.17}]
  startTime: "2026-11-28T05:00:00Z"
  containerStatuses:
  - name: app
    state: {running: {startedAt: "2026-11-28T05:00:01Z"}}
    ready: true
    restartCount: 0
    image: registry.lan/app:v1
    imageID: registry.lan/app@sha256:0123456789abcdef
    containerID: containerd://89ab
    started: true
  qosClass: Burstable`).(*corev1.Pod)
	p.CreationTimestamp = metav1.NewTime(time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC))
	return p
}

// TestEncodeKnownTypical: a Deployment's pod, its Scheduled Event, a
// chart's pod and the pods of the end-to-end stack's workloads encode as
// encoding/json has them; the first three by hand entirely.
func TestEncodeKnownTypical(t *testing.T) {
	pod := deploymentPod(t)
	ev, err := NewEvent(pod, "default-scheduler", corev1.EventTypeNormal, "Scheduled",
		"Successfully assigned default/fleet-7d9c8b5f4-x2kqz to hollow-042", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var e encoder
	e.b = append(e.b, '[')
	e.pod(pod, "Pod", "v1")
	e.elem()
	e.event(ev, "Event", "v1")
	chart := chartPod(t)
	e.elem()
	e.pod(chart, "Pod", "v1")
	if e.fallbacks != 0 || e.err != nil {
		t.Errorf("got %d parts of a typical pod and event through json.Marshal (error %v), want none", e.fallbacks, e.err)
	}
	objs := append([]Object{pod, ev, chart}, stackPods(t)...)
	for _, obj := range objs {
		if !sameAsReflection(t, obj) {
			t.Errorf("%s %s: got an encoding by reflection, want one without", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName())
		}
	}
}

// chartPod is deploymentPod with what charts' containers add: probes on
// a named and a numbered port, env from the downward API, a secret and
// a resource.
func chartPod(tb testing.TB) *corev1.Pod {
	p := deploymentPod(tb)
	c := &p.Spec.Containers[0]
	c.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
	c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz?a=1&b=<2>",
		Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}}, PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
	c.LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}},
		InitialDelaySeconds: 5}
	c.Env = []corev1.EnvVar{{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
		{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "app"}, Key: "token"}}},
		{Name: "MEM", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory"}}}}
	return p
}

// stackPods are the pods of e2e/testdata/stack.yaml's workloads, defaulted
// as created and given a status.
func stackPods(t *testing.T) []Object {
	t.Helper()
	data, err := os.ReadFile("../e2e/testdata/stack.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var pods []Object
	for _, doc := range strings.Split(string(data), "\n---") {
		var probe struct {
			Kind string `json:"kind"`
		}
		js, err := YAMLToJSON([]byte(doc), false)
		if err != nil || json.Unmarshal(js, &probe) != nil {
			continue
		}
		if probe.Kind != "Deployment" && probe.Kind != "DaemonSet" && probe.Kind != "Job" {
			continue
		}
		var w struct {
			Spec struct {
				Template corev1.PodTemplateSpec `json:"template"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(js, &w); err != nil {
			t.Fatal(err)
		}
		p := &corev1.Pod{ObjectMeta: w.Spec.Template.ObjectMeta, Spec: w.Spec.Template.Spec}
		p.Name, p.UID = strings.ToLower(probe.Kind)+"-0", types.UID("u-"+probe.Kind)
		defaultPod(p)
		p.Status = deploymentPod(t).Status
		pods = append(pods, p)
	}
	if len(pods) != 3 {
		t.Fatalf("got %d workload pods in stack.yaml, want 3", len(pods))
	}
	return pods
}

// FuzzEncodeKnown decodes the input as a Pod and as an Event and compares
// their encodings with encoding/json's.
func FuzzEncodeKnown(f *testing.F) {
	pod, err := json.Marshal(deploymentPod(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pod)
	f.Add([]byte(`{"metadata":{"name":"<&>\u2028","labels":{"b":"1","a":"\ud800"}},"spec":{"containers":[]}}`))
	f.Add([]byte(`{"involvedObject":{"kind":"Pod"},"eventTime":"2026-11-28T05:00:00.123456Z","series":{"count":2},"related":{}}`))
	f.Add([]byte(`{"spec":{"containers":[{"resources":{"limits":{"cpu":"+1","memory":"1.5Gi"}},"livenessProbe":{"httpGet":{"port":"http"}}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p corev1.Pod
		if json.Unmarshal(data, &p) == nil {
			sameAsReflection(t, &p)
		}
		var ev corev1.Event
		if json.Unmarshal(data, &ev) == nil {
			sameAsReflection(t, &ev)
		}
	})
}

// BenchmarkEncodePod compares json.Marshal of a typical Deployment pod
// (what EncodeOwned did) with EncodeOwned, and times Encode of one
// without type fields, as responses and watch events write it.
func BenchmarkEncodePod(b *testing.B) {
	pod := deploymentPod(b)
	pod.APIVersion, pod.Kind = "v1", "Pod"
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := json.Marshal(pod); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("EncodeOwned", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := EncodeOwned(pod); err != nil {
				b.Fatal(err)
			}
		}
	})
	served := deploymentPod(b) // as read from the store: no type fields
	b.Run("Encode", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := Encode(served); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestEncodeKnownAllocations: a typical pod's, a chart's pod's and an
// Event's encodings allocate their result only (encoding/json: 27
// allocations for the pod).
func TestEncodeKnownAllocations(t *testing.T) {
	if raceBuild {
		t.Skip("sync.Pool keeps nothing reliably under the race detector")
	}
	pod := deploymentPod(t)
	ev, err := NewEvent(pod, "default-scheduler", corev1.EventTypeNormal, "Scheduled", "Successfully assigned", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range []Object{pod, chartPod(t), ev} {
		gvk := obj.GetObjectKind().GroupVersionKind()
		allocs := testing.AllocsPerRun(100, func() {
			if _, ok := encodeKnown(obj, gvk); !ok {
				t.Fatal("not encoded")
			}
		})
		if allocs > 1 {
			t.Errorf("%T %s: got %v allocations, want 1 (the result)", obj, obj.GetName(), allocs)
		}
	}
}

// BenchmarkEncodeEvent is BenchmarkEncodePod for a Scheduled Event.
func BenchmarkEncodeEvent(b *testing.B) {
	ev, err := NewEvent(deploymentPod(b), "default-scheduler", corev1.EventTypeNormal, "Scheduled",
		"Successfully assigned default/fleet-7d9c8b5f4-x2kqz to hollow-042", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	ev.APIVersion, ev.Kind = "v1", "Event"
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := json.Marshal(ev); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("EncodeOwned", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := EncodeOwned(ev); err != nil {
				b.Fatal(err)
			}
		}
	})
}
