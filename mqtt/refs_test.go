package mqtt

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPodReferences(t *testing.T) {
	cmKey := func(name string) *corev1.ConfigMapKeySelector {
		return &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}, Spec: corev1.PodSpec{
		ImagePullSecrets: []corev1.LocalObjectReference{{Name: "registry"}},
		Volumes: []corev1.Volume{
			{Name: "a", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "conf"}}}},
			{Name: "b", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "tls"}}},
			{Name: "c", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "proj"}}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "proj-s"}}},
			}}}},
			{Name: "d", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
		InitContainers: []corev1.Container{{Name: "init", EnvFrom: []corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "init-env"}}},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "init-secret"}}},
		}}},
		Containers: []corev1.Container{{Name: "app", Env: []corev1.EnvVar{
			{Name: "A", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: cmKey("conf")}},
			{Name: "B", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}}},
			{Name: "C", Value: "plain"},
		}}},
		EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
			Name: "debug", Env: []corev1.EnvVar{{Name: "D", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: cmKey("debug")}}}}}},
	}}
	ref := func(res, name string) ObjectRef { return ObjectRef{Resource: res, Namespace: "shop", Name: name} }
	want := []ObjectRef{
		ref("configmaps", "conf"), ref("configmaps", "debug"), ref("configmaps", "init-env"), ref("configmaps", "proj"),
		ref("secrets", "db"), ref("secrets", "init-secret"), ref("secrets", "proj-s"), ref("secrets", "registry"), ref("secrets", "tls"),
	}
	if got := PodReferences(pod); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := PodReferences(&corev1.Pod{}); len(got) != 0 {
		t.Errorf("pod without references: got %v, want none", got)
	}
}

func TestValidName(t *testing.T) {
	for _, s := range []string{"a", "web-1", "kube-root-ca.crt", "0"} {
		if !validName(s) {
			t.Errorf("validName(%q): got false, want true", s)
		}
	}
	for _, s := range []string{"", "-a", "a-", ".a", "A", "a/b", "a+b", "a#", "ä", string(make([]byte, 254))} {
		if validName(s) {
			t.Errorf("validName(%q): got true, want false", s)
		}
	}
}

// Object names follow the API's path rule, not the DNS one: names the
// API serves (ClusterRoles, the core APIService) must reach watchers.
func TestValidObjectName(t *testing.T) {
	for _, s := range []string{"a", "system:aggregate-to-admin", "v1.", "Upper_case", "ä", "..a"} {
		if !validObjectName(s) {
			t.Errorf("validObjectName(%q): got false, want true", s)
		}
	}
	for _, s := range []string{"", ".", "..", "a/b", "a%2F", "a+b", "a#", "a\x00b", "a\nb", string(make([]byte, maxObjectName+1))} {
		if validObjectName(s) {
			t.Errorf("validObjectName(%q): got true, want false", s)
		}
	}
}

func TestWatchEventOfClusterRole(t *testing.T) {
	ref := ObjectRef{Resource: "clusterroles", Name: "system:aggregate-to-view"}
	if err := ref.check(); err != nil {
		t.Fatalf("check: %v", err)
	}
	if err := (ObjectRef{Resource: "clusterroles", Name: "a/b"}).check(); err == nil || !strings.Contains(err.Error(), "name:") {
		t.Fatalf("check of a/b: got %v, want an error naming the name", err)
	}
}

func TestIsNodeTopic(t *testing.T) {
	for _, tc := range []struct {
		topic, node, leaf string
		want              bool
	}{
		{PodStatusTopic("pi-1"), "pi-1", "pods/status", true},
		{StatusTopic("pi-1"), "pi-1", "status", true},
		{AckTopic("pi-1"), "pi-1", "ack", true},
		{PodStatusTopic("pi-1"), "pi-1", "status", false},
		{PodStatusTopic("pi-10"), "pi-1", "pods/status", false},
		{StatusTopic("pi-1") + "/x", "pi-1", "status", false},
		{StatusTopic("pi-1"), "pi-", "1/status", false},
		{"bramble/v2/nodes/pi-1/status", "pi-1", "status", false},
		{"bramble/v1/nodes/pi-1status", "pi-1", "status", false},
	} {
		if got := IsNodeTopic(tc.topic, tc.node, tc.leaf); got != tc.want || got != (tc.topic == NodeSubtree(tc.node)+tc.leaf) {
			t.Errorf("IsNodeTopic(%q, %q, %q) = %v, want %v", tc.topic, tc.node, tc.leaf, got, tc.want)
		}
	}
}
