package history

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func template(image string) *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}},
	}
}

func TestPatchRoundTripsAndReplacesTheTemplate(t *testing.T) {
	data, err := Patch(template("nginx:1"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), `{"spec":{"template":{"$patch":"replace","metadata":`) {
		t.Errorf("patch %s, want spec.template with $patch: replace first (sorted keys, as kubectl encodes)", data)
	}
	got, err := Template(&appsv1.ControllerRevision{Data: runtime.RawExtension{Raw: data}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Containers[0].Image != "nginx:1" || got.Labels["app"] != "web" {
		t.Errorf("decoded template %+v, want the one encoded", got)
	}
	if _, err := Template(&appsv1.ControllerRevision{Data: runtime.RawExtension{Raw: []byte("{")}}); err == nil {
		t.Error("decoding bad data succeeded")
	}
}

func TestHashAndName(t *testing.T) {
	a, _ := Patch(template("nginx:1"))
	b, _ := Patch(template("nginx:2"))
	one := int32(1)
	first, again := Hash(a, nil), Hash(a, nil)
	if first == Hash(b, nil) || first == Hash(a, &one) || first != again {
		t.Errorf("hashes %s %s %s: want distinct for other data or collision count, stable otherwise",
			Hash(a, nil), Hash(b, nil), Hash(a, &one))
	}
	if got := Name("web", "abc"); got != "web-abc" {
		t.Errorf("Name = %q, want web-abc", got)
	}
	if got := Name(strings.Repeat("x", 300), "abc"); len(got) != maxPrefix+4 {
		t.Errorf("long owner gives a %d-character name, want %d", len(got), maxPrefix+4)
	}
}

// FuzzTemplate feeds revision data users may have written through the API
// (ControllerRevisions are writable) to Template: an error or a template,
// never a panic, and a template it decodes survives Patch and back.
func FuzzTemplate(f *testing.F) {
	good, _ := Patch(template("nginx:1"))
	for _, seed := range []string{string(good), "{", "null", `{"spec":null}`, `{"spec":{"template":"x"}}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Template(&appsv1.ControllerRevision{Data: runtime.RawExtension{Raw: data}})
		if err != nil {
			return
		}
		again, err := Patch(got)
		if err != nil {
			t.Fatalf("Patch of a decoded template: %v", err)
		}
		if _, err := Template(&appsv1.ControllerRevision{Data: runtime.RawExtension{Raw: again}}); err != nil {
			t.Fatalf("Template of its own patch: %v", err)
		}
	})
}
