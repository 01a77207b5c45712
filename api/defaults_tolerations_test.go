package api

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDefaultTolerations(t *testing.T) {
	secs := func(s int64) *int64 { return &s }
	notReady := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists,
		Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(300)}
	unreachable := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists,
		Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(300)}
	own := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists,
		Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(5)}
	cases := []struct {
		name string
		in   []corev1.Toleration
		want []corev1.Toleration
	}{
		{"none", nil, []corev1.Toleration{notReady, unreachable}},
		{"own unreachable kept", []corev1.Toleration{own}, []corev1.Toleration{own, notReady}},
		{"empty effect covers", []corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists}},
			[]corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists}, unreachable}},
		{"tolerate everything", []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			[]corev1.Toleration{{Operator: corev1.TolerationOpExists}}},
		{"NoSchedule does not cover", []corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}, notReady, unreachable}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := DefaultTolerations(tc.in)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d tolerations %v, want %d %v", len(got), got, len(tc.want), tc.want)
			}
			for i := range got {
				if !got[i].MatchToleration(&tc.want[i]) || !sameSeconds(got[i].TolerationSeconds, tc.want[i].TolerationSeconds) {
					t.Fatalf("toleration %d: got %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func sameSeconds(a, b *int64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func TestPodDefaultsTolerationsButTemplatesDoNot(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a", Image: "busybox"}}}}
	Default(pod)
	Default(pod)
	if n := len(pod.Spec.Tolerations); n != 2 {
		t.Fatalf("got %d tolerations after defaulting twice, want 2: %v", n, pod.Spec.Tolerations)
	}
	res, _ := Lookup("", "v1", "pods")
	if errs := ValidateCreate(res, pod); len(errs) > 0 {
		t.Fatalf("defaulted pod does not validate: %v", errs)
	}
	rs := &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Template: corev1.PodTemplateSpec{Spec: pod.Spec}}}
	rs.Spec.Template.Spec.Tolerations = nil
	Default(rs)
	if n := len(rs.Spec.Template.Spec.Tolerations); n != 0 {
		t.Fatalf("got %d tolerations in a ReplicaSet template, want 0", n)
	}
}
