package api

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/internal/childtest"
)

// TestSchemeIsBuiltOnFirstUse runs itself in a fresh process, where no
// other test has touched the Scheme yet: what the agent uses of the api
// package (YAML and defaults of static pods; decoding too) must not build it, and the
// first call must give a Scheme with every kind the init functions queued.
func TestSchemeIsBuiltOnFirstUse(t *testing.T) {
	if !childtest.Fresh(t) {
		return
	}
	if schemeBuilt {
		t.Fatal("the Scheme was built during package initialisation")
	}
	js, err := YAMLToJSON([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	pods, _ := ByKind("", "Pod")
	pod, _, err := DecodeJSON(pods, js, true)
	if err != nil {
		t.Fatal(err)
	}
	Default(pod)
	if schemeBuilt {
		t.Fatal("decoding and defaulting a pod built the Scheme")
	}
	for _, obj := range []Object{&corev1.Pod{}, &rbacv1.Role{}, &APIService{}, &apiextv1.CustomResourceDefinition{}} {
		if _, _, err := Scheme().ObjectKinds(obj); err != nil {
			t.Errorf("Scheme does not know %T: %v", obj, err)
		}
	}
	if !schemeBuilt || !Scheme().IsVersionRegistered(metav1.SchemeGroupVersion) {
		t.Error("the first call did not build the Scheme")
	}
}
