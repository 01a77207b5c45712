package registry

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/datastore"
)

func newTestRegistry(t testing.TB) *Registry {
	t.Helper()
	ctx := context.Background()
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"), datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatalf("open datastore: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	r, err := New(ctx, Config{Store: store})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return r
}

// wantInvalid fails unless err is a 422 naming field.
func wantInvalid(t *testing.T, what string, err error, field string) {
	t.Helper()
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), field) {
		t.Fatalf("%s: got %v, want 422 Invalid naming %s", what, err, field)
	}
}

// TestInProcessWritersAreAdmitted shows that the in-process paths the
// controllers, the scheduler's binder, node status and join write through
// refuse invalid objects with the validation a user's request meets.
func TestInProcessWritersAreAdmitted(t *testing.T) {
	r := newTestRegistry(t)
	c, ctx := r.Client(), context.Background()
	labels := map[string]string{"app": "web"}
	bad := int32(-1)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: &bad, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}}}
	_, err := c.Create(ctx, d)
	wantInvalid(t, "controller create", err, "spec.replicas")

	d.Spec.Replicas = nil
	created, err := c.Create(ctx, d)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	upd := created.DeepCopyObject().(*appsv1.Deployment)
	upd.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "other"}}
	_, err = c.Update(ctx, upd)
	wantInvalid(t, "controller update", err, "spec.selector")
	st := created.DeepCopyObject().(*appsv1.Deployment)
	st.Status.Replicas = -3
	_, err = c.UpdateStatus(ctx, st)
	wantInvalid(t, "controller status update", err, "status.replicas")

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if _, err := c.Create(ctx, pod); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	err = r.Bind(ctx, "default", &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Target: corev1.ObjectReference{Kind: "Node", Name: "Not A Node!"}}, false)
	wantInvalid(t, "scheduler binding", err, "target.name")

	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "pi-1", Labels: map[string]string{"bad key!": "x"}}}
	_, err = c.Create(ctx, node)
	wantInvalid(t, "node status create", err, "metadata.labels")

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "bramble-token-x", Namespace: "kube-system"},
		Data: map[string][]byte{"not a key!": []byte("x")}}
	_, err = c.Create(ctx, secret)
	wantInvalid(t, "join token secret", err, "data[not a key!]")
}
