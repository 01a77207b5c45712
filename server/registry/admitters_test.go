package registry

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
)

// recordingAdmitter labels what it admits, refuses names starting with
// "no-", and records each release.
type recordingAdmitter struct {
	seen     []string
	released []bool
}

func (p *recordingAdmitter) Admit(_ context.Context, a *Attributes) (func(bool), error) {
	name := a.Object.GetName()
	p.seen = append(p.seen, name)
	if len(name) > 3 && name[:3] == "no-" {
		return nil, apierrors.NewForbidden(schema.GroupResource{Resource: a.Resource.Name}, name, errors.New("refused by test"))
	}
	a.Object.SetLabels(map[string]string{"admitted": "yes", "create": map[bool]string{true: "yes", false: "no"}[a.Create()]})
	return func(stored bool) { p.released = append(p.released, stored) }, nil
}

// TestAdmittersSeeEveryWrite shows that plugins run on creates and
// updates, may change the object, may refuse it, and learn whether what
// they admitted was stored.
func TestAdmittersSeeEveryWrite(t *testing.T) {
	r := newTestRegistry(t)
	p := &recordingAdmitter{}
	r.Use(p)
	c, ctx := r.Client(), context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default"}}
	got, err := c.Create(ctx, cm)
	if err != nil || got.GetLabels()["create"] != "yes" {
		t.Fatalf("create: %v, labels %v", err, got)
	}
	if _, err := c.Create(ctx, cm); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("second create: %v, want AlreadyExists", err)
	}
	_, err = c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "no-b", Namespace: "default"}})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("refused create: %v, want Forbidden", err)
	}
	upd := got.DeepCopyObject().(*corev1.ConfigMap)
	upd.Data = map[string]string{"k": "v"}
	got, err = c.Update(ctx, upd)
	if err != nil || got.GetLabels()["create"] != "no" {
		t.Fatalf("update: %v, labels %v", err, got)
	}
	res := api.MustLookup("", "v1", "configmaps")
	if _, err := r.Get(ctx, res, "default", "no-b"); !apierrors.IsNotFound(err) {
		t.Fatalf("refused object stored: %v", err)
	}
	want := []bool{true, false, true}
	if len(p.released) != len(want) {
		t.Fatalf("released %v, want %v", p.released, want)
	}
	for i := range want {
		if p.released[i] != want[i] {
			t.Fatalf("released %v, want %v", p.released, want)
		}
	}
}
