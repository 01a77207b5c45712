package registry

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// suffixes makes generated names end in the given suffixes, in turn.
func suffixes(t *testing.T, list ...string) {
	t.Helper()
	prev := nameSuffix
	t.Cleanup(func() { nameSuffix = prev })
	nameSuffix = func(b *[5]byte) {
		copy(b[:], list[0])
		list = list[1:]
	}
}

func webPod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "web-", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
}

// TestClientCreateNewTakesTheObjectOver: CreateNew stores the object it is
// given, no copy, and builds a fresh one when the generated name is taken.
func TestClientCreateNewTakesTheObjectOver(t *testing.T) {
	c, ctx := newTestRegistry(t).Client(), context.Background()
	suffixes(t, "bbbbb", "bbbbb", "ccccc")
	if _, err := c.Create(ctx, webPod()); err != nil {
		t.Fatal(err)
	}
	var built []*corev1.Pod
	out, err := c.CreateNew(ctx, func() api.Object {
		p := webPod()
		built = append(built, p)
		return p
	})
	if err != nil {
		t.Fatalf("create after a taken name: %v", err)
	}
	if len(built) != 2 {
		t.Fatalf("got %d pods built, want 2 (a fresh one after the taken name)", len(built))
	}
	if out != api.Object(built[1]) || out.GetName() != "web-ccccc" || out.GetResourceVersion() == "" {
		t.Fatalf("got %s (rv %q), want the second pod built, stored as web-ccccc", out.GetName(), out.GetResourceVersion())
	}
	if built[0].Spec.ServiceAccountName != built[1].Spec.ServiceAccountName || built[1].Spec.RestartPolicy != corev1.RestartPolicyAlways {
		t.Fatalf("the stored pod was not admitted: %+v", built[1].Spec)
	}
}

// TestCreateNewWithItsNameIsCreate: an object with its name is stored as
// Create stores it, and a taken name is AlreadyExists, not retried.
func TestCreateNewWithItsNameIsCreate(t *testing.T) {
	reg, ctx := newTestRegistry(t), context.Background()
	res := api.MustLookup("", "v1", "configmaps")
	cm := func() *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"k": "v"}}
	}
	if _, err := reg.CreateNew(ctx, res, "default", cm(), nil, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := reg.Get(ctx, res, "default", "cm")
	if err != nil || got.(*corev1.ConfigMap).Data["k"] != "v" || got.GetNamespace() != "default" {
		t.Fatalf("got %+v, %v; want the config map in default", got, err)
	}
	_, errNew := reg.CreateNew(ctx, res, "default", cm(), nil, WriteOptions{})
	_, errOld := reg.Create(ctx, res, "default", cm(), WriteOptions{})
	if errNew == nil || errOld == nil || errNew.Error() != errOld.Error() {
		t.Fatalf("got %v, want Create's %v", errNew, errOld)
	}
}
