package deployment

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

func baseTemplate() *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1",
			Ports: []corev1.ContainerPort{{ContainerPort: 80}}}}},
	}
}

// fromJSON decodes a template the way the API decodes what kubectl sends.
func fromJSON(t *testing.T, text string) *corev1.PodTemplateSpec {
	t.Helper()
	var out corev1.PodTemplateSpec
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("decode template: %v", err)
	}
	return &out
}

func TestTemplateHashIgnoresNoiseAndDefaults(t *testing.T) {
	base := baseTemplate()
	want := TemplateHash(base, nil)

	defaulted := base.DeepCopy()
	rs := wrapTemplate(defaulted)
	api.Default(rs)
	withHash := rs.Spec.Template.DeepCopy()
	withHash.Labels[HashLabel] = want
	kubectl := fromJSON(t, `{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},
		"spec":{"containers":[{"name":"web","image":"nginx:1","ports":[{"containerPort":80}],"resources":{}}]}}`)
	kubectl.Spec.Containers[0].Resources.Limits = corev1.ResourceList{} // "limits": {}
	for name, tmpl := range map[string]*corev1.PodTemplateSpec{
		"defaulted": &rs.Spec.Template, "with hash label": withHash, "kubectl undo body": kubectl,
	} {
		if got := TemplateHash(tmpl, nil); got != want {
			t.Errorf("%s: hash got %s, want %s", name, got, want)
		}
		if !EqualIgnoreHash(tmpl, base) {
			t.Errorf("%s: EqualIgnoreHash got false, want true", name)
		}
	}
}

func TestTemplateHashSeesRealChanges(t *testing.T) {
	base := baseTemplate()
	want := TemplateHash(base, nil)
	image := baseTemplate()
	image.Spec.Containers[0].Image = "nginx:2"
	restarted := baseTemplate()
	restarted.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-11-21T10:00:00Z"}
	limits := baseTemplate()
	limits.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	for name, tmpl := range map[string]*corev1.PodTemplateSpec{"image": image, "restart": restarted, "limits": limits} {
		if TemplateHash(tmpl, nil) == want {
			t.Errorf("%s: hash unchanged (%s), want a different one", name, want)
		}
		if EqualIgnoreHash(tmpl, base) {
			t.Errorf("%s: EqualIgnoreHash got true, want false", name)
		}
	}
	one := int32(1)
	if TemplateHash(base, &one) == want {
		t.Errorf("collision count 1: hash unchanged, want a different one")
	}
	cpu := baseTemplate()
	cpu.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000m")}
	if TemplateHash(cpu, nil) != TemplateHash(limits, nil) || !EqualIgnoreHash(cpu, limits) {
		t.Errorf("cpu 1000m and 1: got different templates, want the same")
	}
}

func TestNormalisedDoesNotTouchInput(t *testing.T) {
	tmpl := baseTemplate()
	tmpl.Labels[HashLabel] = "abc"
	TemplateHash(tmpl, nil)
	EqualIgnoreHash(tmpl, baseTemplate())
	if tmpl.Labels[HashLabel] != "abc" || tmpl.Spec.Containers[0].ImagePullPolicy != "" {
		t.Fatalf("template changed by hashing: got labels %v, pull policy %q", tmpl.Labels, tmpl.Spec.Containers[0].ImagePullPolicy)
	}
}
