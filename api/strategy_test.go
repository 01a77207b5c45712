package api

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

const deploymentYAML = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, annotations: {a: b}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1"}]
status: {replicas: 7}
`

func TestPrepareForCreate(t *testing.T) {
	d := decodeYAML(t, "Deployment", deploymentYAML).(*appsv1.Deployment)
	d.Generation = 9
	PrepareForCreate(res(t, "Deployment"), d)
	if d.Generation != 1 || d.Status.Replicas != 0 || *d.Spec.Replicas != 1 {
		t.Errorf("deployment: got generation %d, status.replicas %d, replicas %d; want 1, 0, 1",
			d.Generation, d.Status.Replicas, *d.Spec.Replicas)
	}
	cm := decodeYAML(t, "ConfigMap", "metadata: {name: c, generation: 4}")
	PrepareForCreate(res(t, "ConfigMap"), cm)
	if cm.GetGeneration() != 0 {
		t.Errorf("configmap: got generation %d, want 0", cm.GetGeneration())
	}
	pod := decodeYAML(t, "Pod", `
metadata: {name: p}
spec: {containers: [{name: c, image: x, resources: {limits: {cpu: 1, memory: 1Gi}}}]}
status: {phase: Running, podIP: 10.0.0.1}`).(*corev1.Pod)
	PrepareForCreate(res(t, "Pod"), pod)
	if pod.Status.Phase != corev1.PodPending || pod.Status.PodIP != "" || pod.Status.QOSClass != corev1.PodQOSGuaranteed {
		t.Errorf("pod status: got %+v, want Pending, no IP, Guaranteed", pod.Status)
	}
	ns := decodeYAML(t, "Namespace", "metadata: {name: team}\nspec: {finalizers: [example.com/x]}\nstatus: {phase: Terminating}").(*corev1.Namespace)
	PrepareForCreate(res(t, "Namespace"), ns)
	if ns.Status.Phase != corev1.NamespaceActive || len(ns.Spec.Finalizers) != 2 || ns.Spec.Finalizers[1] != "kubernetes" {
		t.Errorf("namespace: got phase %s, finalizers %v", ns.Status.Phase, ns.Spec.Finalizers)
	}
	node := decodeYAML(t, "Node", "metadata: {name: \"n1\"}\nstatus: {nodeInfo: {kubeletVersion: v1.32.0}}")
	PrepareForCreate(res(t, "Node"), node)
	if v := node.(*corev1.Node).Status.NodeInfo.KubeletVersion; v != "v1.32.0" {
		t.Errorf("node status: got kubeletVersion %q, want it kept", v)
	}
}

func TestPrepareForCreateJob(t *testing.T) {
	tests := []struct {
		name, manifest string
		wantSelector   map[string]string
		wantTemplate   map[string]string
		wantLabels     map[string]string
	}{
		{name: "generated", manifest: "metadata: {name: pi}\nspec: {template: {spec: {restartPolicy: Never}}}",
			wantSelector: map[string]string{LabelJobControllerUID: "u1"},
			wantTemplate: map[string]string{LabelJobControllerUID: "u1", "controller-uid": "u1", LabelJobName: "pi", "job-name": "pi"},
			wantLabels:   map[string]string{LabelJobControllerUID: "u1", "controller-uid": "u1", LabelJobName: "pi", "job-name": "pi"}},
		{name: "user template labels", manifest: "metadata: {name: pi}\nspec: {template: {metadata: {labels: {app: x}}}}",
			wantSelector: map[string]string{LabelJobControllerUID: "u1"},
			wantTemplate: map[string]string{"app": "x", LabelJobControllerUID: "u1", "controller-uid": "u1", LabelJobName: "pi", "job-name": "pi"},
			wantLabels:   map[string]string{"app": "x"}},
		{name: "manual", manifest: "metadata: {name: pi}\nspec: {manualSelector: true, selector: {matchLabels: {app: x}}, template: {metadata: {labels: {app: x}}}}",
			wantSelector: map[string]string{"app": "x"}, wantTemplate: map[string]string{"app": "x"},
			wantLabels: map[string]string{"app": "x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := decodeYAML(t, "Job", tc.manifest).(*batchv1.Job)
			j.UID = types.UID("u1")
			PrepareForCreate(res(t, "Job"), j)
			if got := j.Spec.Selector.MatchLabels; !mapsEqual(got, tc.wantSelector) {
				t.Errorf("selector: got %v, want %v", got, tc.wantSelector)
			}
			if got := j.Spec.Template.Labels; !mapsEqual(got, tc.wantTemplate) {
				t.Errorf("template labels: got %v, want %v", got, tc.wantTemplate)
			}
			if got := j.Labels; !mapsEqual(got, tc.wantLabels) {
				t.Errorf("job labels: got %v, want %v", got, tc.wantLabels)
			}
			if j.Generation != 1 {
				t.Errorf("generation: got %d, want 1", j.Generation)
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// storedDeployment is a created deployment as the datastore holds it.
func storedDeployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	d := decodeYAML(t, "Deployment", deploymentYAML).(*appsv1.Deployment)
	d.UID, d.ResourceVersion = "uid-1", "5"
	d.CreationTimestamp = metav1.Unix(1000, 0)
	PrepareForCreate(res(t, "Deployment"), d)
	d.Status.Replicas, d.Status.ObservedGeneration = 3, 1
	return d
}

func TestPrepareForUpdateGeneration(t *testing.T) {
	tests := []struct {
		name   string
		change func(d *appsv1.Deployment)
		want   int64
	}{
		{"no change", func(d *appsv1.Deployment) {}, 1},
		{"image", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:2" }, 2},
		{"replicas", func(d *appsv1.Deployment) { d.Spec.Replicas = ptrTo(int32(5)) }, 2},
		{"annotation", func(d *appsv1.Deployment) { d.Annotations["a"] = "c" }, 2},
		{"label only", func(d *appsv1.Deployment) { d.Labels = map[string]string{"x": "y"} }, 1},
		{"status only", func(d *appsv1.Deployment) { d.Status.Replicas = 9 }, 1},
		{"client generation", func(d *appsv1.Deployment) { d.Generation = 42 }, 1},
		{"undo-style template: empty resources, null timestamp, no defaults", func(d *appsv1.Deployment) {
			d.Spec.Template = corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1", Resources: corev1.ResourceRequirements{}}}},
			}
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := storedDeployment(t)
			d := old.DeepCopy()
			d.Status, d.UID, d.CreationTimestamp = appsv1.DeploymentStatus{}, "", metav1.Time{}
			tc.change(d)
			PrepareForUpdate(res(t, "Deployment"), d, old)
			if d.Generation != tc.want {
				t.Errorf("generation: got %d, want %d", d.Generation, tc.want)
			}
			if d.Status.Replicas != old.Status.Replicas && tc.name != "status only" {
				t.Errorf("status.replicas: got %d, want %d kept", d.Status.Replicas, old.Status.Replicas)
			}
			if tc.name == "status only" && d.Status.Replicas != 3 {
				t.Errorf("status write through main resource: got replicas %d, want 3 kept", d.Status.Replicas)
			}
			if d.UID != "uid-1" || !d.CreationTimestamp.Equal(&old.CreationTimestamp) {
				t.Errorf("got uid %q, created %v; want them kept from the stored object", d.UID, d.CreationTimestamp)
			}
		})
	}
}

func TestPrepareForStatusUpdate(t *testing.T) {
	old := storedDeployment(t)
	d := old.DeepCopy()
	d.ResourceVersion = "5"
	d.Spec.Replicas = ptrTo(int32(10))
	d.Labels = map[string]string{"sneaky": "yes"}
	d.Status.ReadyReplicas = 3
	PrepareForStatusUpdate(res(t, "Deployment"), d, old)
	if *d.Spec.Replicas != 1 || d.Labels["sneaky"] != "" {
		t.Errorf("got replicas %d, labels %v; want spec and metadata kept", *d.Spec.Replicas, d.Labels)
	}
	if d.Status.ReadyReplicas != 3 || d.ResourceVersion != "5" {
		t.Errorf("got readyReplicas %d, rv %q; want 3, 5", d.Status.ReadyReplicas, d.ResourceVersion)
	}
	d.Spec.Template.Labels["mutate"] = "x"
	if old.Spec.Template.Labels["mutate"] != "" {
		t.Error("status update shares maps with the stored object")
	}

	// A Deployment's status write may set annotations (the controller's
	// revision), without a generation bump; a ReplicaSet's may not.
	d = old.DeepCopy()
	d.Annotations = map[string]string{"deployment.kubernetes.io/revision": "2"}
	d.Generation = 9
	PrepareForStatusUpdate(res(t, "Deployment"), d, old)
	if d.Annotations["deployment.kubernetes.io/revision"] != "2" || d.Generation != old.Generation {
		t.Errorf("Deployment status write: got annotations %v, generation %d; want the revision kept and generation %d",
			d.Annotations, d.Generation, old.Generation)
	}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs", Annotations: map[string]string{"a": "1"}}}
	rs2 := rs.DeepCopy()
	rs2.Annotations["a"] = "2"
	PrepareForStatusUpdate(res(t, "ReplicaSet"), rs2, rs)
	if rs2.Annotations["a"] != "1" {
		t.Errorf("ReplicaSet status write changed annotations to %v", rs2.Annotations)
	}
}

func TestPrepareForUpdateNamespaceKeepsFinalizers(t *testing.T) {
	old := decodeYAML(t, "Namespace", "metadata: {name: team}").(*corev1.Namespace)
	PrepareForCreate(res(t, "Namespace"), old)
	ns := old.DeepCopy()
	ns.Spec.Finalizers = nil
	ns.Status.Phase = corev1.NamespaceTerminating
	PrepareForUpdate(res(t, "Namespace"), ns, old)
	if len(ns.Spec.Finalizers) != 1 || ns.Status.Phase != corev1.NamespaceActive {
		t.Errorf("got finalizers %v, phase %s; want [kubernetes], Active", ns.Spec.Finalizers, ns.Status.Phase)
	}
}

func TestPodQOSClass(t *testing.T) {
	rl := func(cpu, mem string) corev1.ResourceList {
		l := corev1.ResourceList{}
		if cpu != "" {
			l[corev1.ResourceCPU] = mustQuantity(t, cpu)
		}
		if mem != "" {
			l[corev1.ResourceMemory] = mustQuantity(t, mem)
		}
		return l
	}
	tests := []struct {
		name     string
		req, lim corev1.ResourceList
		want     corev1.PodQOSClass
	}{
		{"none", nil, nil, corev1.PodQOSBestEffort},
		{"equal", rl("1", "1Gi"), rl("1", "1Gi"), corev1.PodQOSGuaranteed},
		{"requests below limits", rl("500m", "1Gi"), rl("1", "1Gi"), corev1.PodQOSBurstable},
		{"cpu only", rl("1", ""), rl("1", ""), corev1.PodQOSBurstable},
		{"requests only", rl("1", "1Gi"), nil, corev1.PodQOSBurstable},
		{"zero requests", rl("0", "0"), nil, corev1.PodQOSBestEffort},
	}
	for _, tc := range tests {
		spec := &corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: tc.req, Limits: tc.lim}}}}
		if got := PodQOSClass(spec); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

func mustQuantity(t testing.TB, s string) resource.Quantity {
	t.Helper()
	q, err := resource.ParseQuantity(s)
	if err != nil {
		t.Fatalf("quantity %q: %v", s, err)
	}
	return q
}
