package registry

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// revisionAdmitter records the revision each admission began at.
type revisionAdmitter struct{ revs []int64 }

func (p *revisionAdmitter) Admit(_ context.Context, a *Attributes) (func(bool), error) {
	p.revs = append(p.revs, a.Revision)
	return nil, nil
}

// TestAdmissionRevisionCoversEarlierWrites shows that a plugin learns a
// revision at or past every write finished before the one it admits, and
// before that write's own: its policy reads at that revision see them.
func TestAdmissionRevisionCoversEarlierWrites(t *testing.T) {
	r := newTestRegistry(t)
	p := &revisionAdmitter{}
	r.Use(p)
	c, ctx := r.Client(), context.Background()
	cm := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	}
	first, err := c.Create(ctx, cm("first"))
	if err != nil {
		t.Fatalf("create first: %v", err)
	}
	second, err := c.Create(ctx, cm("second"))
	if err != nil {
		t.Fatalf("create second: %v", err)
	}
	before, _ := ParseResourceVersion(first.GetResourceVersion())
	after, _ := ParseResourceVersion(second.GetResourceVersion())
	if got := p.revs[len(p.revs)-1]; got < before || got >= after {
		t.Fatalf("admission revision of second: got %d, want in [%d, %d)", got, before, after)
	}
}
