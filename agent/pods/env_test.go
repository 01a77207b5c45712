package pods

import (
	"context"
	"errors"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/runtime"
)

func cmKey(name, key string, optional bool) *corev1.EnvVarSource {
	return &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key, Optional: &optional}}
}

func TestResolveEnv(t *testing.T) {
	store := &fakeStore{}
	store.set(KindConfigMap, "default", "cfg", map[string]string{"greeting": "hello", "B": "from-cm"})
	store.set(KindSecret, "default", "creds", map[string]string{"password": "s3cret"})
	pod := testPod(corev1.RestartPolicyAlways, "app")
	cases := []struct {
		name    string
		envFrom []corev1.EnvFromSource
		env     []corev1.EnvVar
		want    []runtime.EnvVar
		wantErr bool
	}{
		{name: "value", env: []corev1.EnvVar{{Name: "A", Value: "1"}}, want: []runtime.EnvVar{{Name: "A", Value: "1"}}},
		{name: "configMapKeyRef", env: []corev1.EnvVar{{Name: "G", ValueFrom: cmKey("cfg", "greeting", false)}},
			want: []runtime.EnvVar{{Name: "G", Value: "hello"}}},
		{name: "secretKeyRef", env: []corev1.EnvVar{{Name: "P", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Key: "password"}}}},
			want: []runtime.EnvVar{{Name: "P", Value: "s3cret"}}},
		{name: "missing key", env: []corev1.EnvVar{{Name: "G", ValueFrom: cmKey("cfg", "nope", false)}}, wantErr: true},
		{name: "missing map", env: []corev1.EnvVar{{Name: "G", ValueFrom: cmKey("gone", "k", false)}}, wantErr: true},
		{name: "optional missing", env: []corev1.EnvVar{{Name: "G", ValueFrom: cmKey("gone", "k", true)}}},
		{name: "fieldRefs", env: []corev1.EnvVar{
			{Name: "N", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "NS", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
			{Name: "U", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.uid"}}},
			{Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
			{Name: "IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
		}, want: []runtime.EnvVar{{Name: "N", Value: "web"}, {Name: "NS", Value: "default"}, {Name: "U", Value: "uid-1"},
			{Name: "NODE", Value: "pi-1"}, {Name: "IP", Value: "10.0.0.5"}}},
		{name: "envFrom with prefix, env overrides", envFrom: []corev1.EnvFromSource{
			{Prefix: "CM_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}}},
		}, env: []corev1.EnvVar{{Name: "CM_B", Value: "mine"}},
			want: []runtime.EnvVar{{Name: "CM_B", Value: "mine"}, {Name: "CM_greeting", Value: "hello"}, {Name: "password", Value: "s3cret"}}},
		{name: "envFrom missing", envFrom: []corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "gone"}}}}, wantErr: true},
	}
	for _, c := range cases {
		ctr := &corev1.Container{Name: "app", Env: c.env, EnvFrom: c.envFrom}
		got, err := resolveEnv(context.Background(), store.lookup, pod, ctr, "10.0.0.5", nil)
		if c.wantErr {
			if !errors.Is(err, errConfig) {
				t.Errorf("%s: got error %v, want a config error", c.name, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

func TestMissingConfigMapWaitsWithCreateContainerConfigError(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "G", ValueFrom: cmKey("cfg", "greeting", false)}}
	h := newHarness(t, pod)
	s := h.step()
	if got := waitingReason(ctrStatus(t, s, "app")); got != "CreateContainerConfigError" || s.Phase != corev1.PodPending {
		t.Fatalf("missing ConfigMap: got %s phase %s, want CreateContainerConfigError Pending", got, s.Phase)
	}
	h.store.set(KindConfigMap, "default", "cfg", map[string]string{"greeting": "hi"})
	if c := ctrStatus(t, h.step(), "app"); c.State.Running == nil {
		t.Fatalf("ConfigMap created: got %+v, want running", c.State)
	}
	h.rt.mu.Lock()
	env := h.rt.ctrs[ContainerID("uid-1", "app", 0)].spec.Env
	h.rt.mu.Unlock()
	if !reflect.DeepEqual(env, []runtime.EnvVar{{Name: "G", Value: "hi"}}) {
		t.Errorf("env: got %v, want G=hi", env)
	}
}
