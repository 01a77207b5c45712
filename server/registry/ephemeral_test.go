package registry

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
)

// debugPod creates pod p with containers app and side, and a volume.
func debugPod(t *testing.T, r *Registry) {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{
		Containers:     []corev1.Container{{Name: "app", Image: "busybox"}},
		InitContainers: []corev1.Container{{Name: "init", Image: "busybox"}},
		Volumes:        []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}}
	if _, err := r.Create(context.Background(), podsResource, "default", pod, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// patchEphemeral sends the strategic-merge patch kubectl debug sends.
func patchEphemeral(r *Registry, body string) (*corev1.Pod, error) {
	o, _, err := r.Patch(context.Background(), podsResource, "default", "p", api.SubresourceEphemeral,
		types.StrategicMergePatchType, []byte(body), WriteOptions{})
	if err != nil {
		return nil, err
	}
	return o.(*corev1.Pod), nil
}

// TestEphemeralContainersAdded: kubectl debug's patch adds a container,
// defaulted as upstream, and changes nothing else of the pod.
func TestEphemeralContainersAdded(t *testing.T) {
	r := newTestRegistry(t)
	debugPod(t, r)
	p, err := patchEphemeral(r, `{"metadata":{"labels":{"x":"y"}},"spec":{"containers":[{"name":"app","image":"nginx"}],
		"ephemeralContainers":[{"name":"dbg","image":"busybox","targetContainerName":"app","stdin":true,"tty":true,"resources":{},
		"volumeMounts":[{"name":"data","mountPath":"/data"}]}]}}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Spec.EphemeralContainers) != 1 {
		t.Fatalf("got %d ephemeral containers, want 1", len(p.Spec.EphemeralContainers))
	}
	ec := p.Spec.EphemeralContainers[0]
	if ec.ImagePullPolicy != corev1.PullAlways || ec.TerminationMessagePath != api.DefaultTerminationMessage ||
		ec.TerminationMessagePolicy != corev1.TerminationMessageReadFile {
		t.Fatalf("got pull policy %q, message %q %q, want defaults", ec.ImagePullPolicy, ec.TerminationMessagePath, ec.TerminationMessagePolicy)
	}
	if p.Labels["x"] != "" || p.Spec.Containers[0].Image != "busybox" {
		t.Fatalf("got labels %v, image %q: only spec.ephemeralContainers may change", p.Labels, p.Spec.Containers[0].Image)
	}
	if _, err := patchEphemeral(r, `{"spec":{"ephemeralContainers":[{"name":"dbg2","image":"busybox"}]}}`); err != nil {
		t.Fatalf("second container: %v", err)
	}
}

// TestEphemeralContainersRefused: each rule's refusal names its field.
func TestEphemeralContainersRefused(t *testing.T) {
	for _, c := range []struct{ name, ec, field string }{
		{"duplicate of app", `{"name":"app","image":"busybox"}`, "spec.ephemeralContainers[0].name"},
		{"duplicate of init", `{"name":"init","image":"busybox"}`, "spec.ephemeralContainers[0].name"},
		{"bad name", `{"name":"Dbg","image":"busybox"}`, "spec.ephemeralContainers[0].name"},
		{"no image", `{"name":"d"}`, "spec.ephemeralContainers[0].image"},
		{"ports", `{"name":"d","image":"b","ports":[{"containerPort":80}]}`, "spec.ephemeralContainers[0].ports"},
		{"probe", `{"name":"d","image":"b","readinessProbe":{"exec":{"command":["true"]}}}`, "spec.ephemeralContainers[0].readinessProbe"},
		{"liveness", `{"name":"d","image":"b","livenessProbe":{"exec":{"command":["true"]}}}`, "spec.ephemeralContainers[0].livenessProbe"},
		{"lifecycle", `{"name":"d","image":"b","lifecycle":{"preStop":{"exec":{"command":["true"]}}}}`, "spec.ephemeralContainers[0].lifecycle"},
		{"resources", `{"name":"d","image":"b","resources":{"limits":{"cpu":"1"}}}`, "spec.ephemeralContainers[0].resources"},
		{"resizePolicy", `{"name":"d","image":"b","resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"}]}`, "spec.ephemeralContainers[0].resizePolicy"},
		{"restartPolicy", `{"name":"d","image":"b","restartPolicy":"Always"}`, "spec.ephemeralContainers[0].restartPolicy"},
		{"target", `{"name":"d","image":"b","targetContainerName":"nope"}`, "spec.ephemeralContainers[0].targetContainerName"},
		{"volume", `{"name":"d","image":"b","volumeMounts":[{"name":"nope","mountPath":"/x"}]}`, "spec.ephemeralContainers[0].volumeMounts[0].name"},
		{"subPath", `{"name":"d","image":"b","volumeMounts":[{"name":"data","mountPath":"/x","subPath":"a"}]}`, "spec.ephemeralContainers[0].volumeMounts[0].subPath"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newTestRegistry(t)
			debugPod(t, r)
			_, err := patchEphemeral(r, `{"spec":{"ephemeralContainers":[`+c.ec+`]}}`)
			wantInvalid(t, c.name, err, c.field)
		})
	}
}

// TestEphemeralContainersKept: added containers cannot be removed or
// changed, through the subresource or the pod itself, and a pod cannot be
// created with one.
func TestEphemeralContainersKept(t *testing.T) {
	r := newTestRegistry(t)
	debugPod(t, r)
	p, err := patchEphemeral(r, `{"spec":{"ephemeralContainers":[{"name":"dbg","image":"busybox"}]}}`)
	if err != nil {
		t.Fatal(err)
	}
	changed := p.DeepCopy()
	changed.Spec.EphemeralContainers[0].Image = "alpine"
	_, err = r.Update(context.Background(), podsResource, "default", "p", api.SubresourceEphemeral, changed, false)
	wantInvalid(t, "change", err, `existing ephemeral containers "dbg" may not be changed`)
	removed := p.DeepCopy()
	removed.Spec.EphemeralContainers = nil
	_, err = r.Update(context.Background(), podsResource, "default", "p", api.SubresourceEphemeral, removed, false)
	wantInvalid(t, "remove", err, `existing ephemeral containers "dbg" may not be removed`)
	out, err := r.Update(context.Background(), podsResource, "default", "p", "", removed, false)
	if err != nil || len(out.(*corev1.Pod).Spec.EphemeralContainers) != 1 {
		t.Fatalf("pod update without them: %v; want them kept", err)
	}
	fresh := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Spec: p.Spec}
	_, err = r.Create(context.Background(), podsResource, "default", fresh, WriteOptions{})
	wantInvalid(t, "create", err, "spec.ephemeralContainers: Forbidden: cannot be set on create")
}
