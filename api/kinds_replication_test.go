package api

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func rcWith(selector map[string]string, template *corev1.PodTemplateSpec) *corev1.ReplicationController {
	return &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "old", Namespace: "default"},
		Spec: corev1.ReplicationControllerSpec{Selector: selector, Template: template}}
}

func rcTemplate(labels map[string]string) *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
}

// TestReplicationControllerRules: upstream's defaults (selector and
// labels from the template, one replica) and its refusals.
func TestReplicationControllerRules(t *testing.T) {
	res := MustLookup("", "v1", "replicationcontrollers")
	rc := rcWith(nil, rcTemplate(map[string]string{"app": "old"}))
	Default(rc)
	if rc.Spec.Selector["app"] != "old" || rc.Labels["app"] != "old" || *rc.Spec.Replicas != 1 {
		t.Fatalf("defaults: selector %v labels %v replicas %d", rc.Spec.Selector, rc.Labels, *rc.Spec.Replicas)
	}
	if errs := ValidateCreate(res, rc); len(errs) > 0 {
		t.Fatalf("valid rc refused: %v", errs)
	}
	for name, tc := range map[string]struct {
		rc   *corev1.ReplicationController
		want string
	}{
		"no template":    {rcWith(map[string]string{"a": "b"}, nil), "spec.template: Required value"},
		"selector wrong": {rcWith(map[string]string{"a": "b"}, rcTemplate(map[string]string{"a": "c"})), "spec.template.metadata.labels"},
		"no selector":    {rcWith(nil, rcTemplate(nil)), "spec.selector: Required value"},
		"negative": {func() *corev1.ReplicationController {
			r := rcWith(nil, rcTemplate(map[string]string{"a": "b"}))
			r.Spec.Replicas = ptrTo(int32(-1))
			return r
		}(), "spec.replicas"},
	} {
		Default(tc.rc)
		errs := ValidateCreate(res, tc.rc)
		if !strings.Contains(errs.ToAggregate().Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming %s", name, errs, tc.want)
		}
	}
}
