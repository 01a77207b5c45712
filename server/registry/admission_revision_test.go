package registry

import (
	"context"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/datastore"
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

// readRevisionAdmitter records, per admission, the revision Attributes
// gives for reads of each of kinds, and the admission's Revision.
type readRevisionAdmitter struct {
	kinds []*api.Resource
	reads [][]int64
	revs  []int64
}

func (p *readRevisionAdmitter) Admit(_ context.Context, a *Attributes) (func(bool), error) {
	var reads []int64
	for _, k := range p.kinds {
		reads = append(reads, a.ReadRevision(k))
	}
	p.reads, p.revs = append(p.reads, reads), append(p.revs, a.Revision)
	return nil, nil
}

func revisionOf(t *testing.T, obj api.Object) int64 {
	t.Helper()
	rev, err := ParseResourceVersion(obj.GetResourceVersion())
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// TestReadRevisionFollowsThePolicyKindsWrites: a plugin's reads of a
// policy kind need reach only that kind's last write (or what was written
// before the registry started), not the writes of other kinds since; a
// kind the registry does not note is read at the admission's Revision.
func TestReadRevisionFollowsThePolicyKindsWrites(t *testing.T) {
	ctx := context.Background()
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"), datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	first, err := New(ctx, Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	limitRanges, configMaps := api.MustLookup("", "v1", "limitranges"), api.MustLookup("", "v1", "configmaps")
	lr := func(name string) *corev1.LimitRange {
		return &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	}
	cm := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	}
	if _, err := first.Client().Create(ctx, lr("before")); err != nil {
		t.Fatal(err)
	}
	r, err := New(ctx, Config{Store: store}) // a restart: the earlier write is below its start
	if err != nil {
		t.Fatal(err)
	}
	start, _ := store.CurrentRevision(ctx)
	p := &readRevisionAdmitter{kinds: []*api.Resource{limitRanges, configMaps}}
	r.Use(p)
	c := r.Client()
	create := func(obj api.Object) int64 {
		t.Helper()
		out, err := c.Create(ctx, obj)
		if err != nil {
			t.Fatalf("create %s: %v", obj.GetName(), err)
		}
		return revisionOf(t, out)
	}
	check := func(what string, wantLR int64) {
		t.Helper()
		i := len(p.revs) - 1
		if got := p.reads[i][0]; got != wantLR {
			t.Errorf("%s: limit ranges read at %d, want %d", what, got, wantLR)
		}
		if got, want := p.reads[i][1], p.revs[i]; got != want {
			t.Errorf("%s: config maps read at %d, want the admission's revision %d", what, got, want)
		}
	}
	create(cm("a"))
	create(cm("b"))
	create(cm("c"))
	check("after a restart", start)
	written := create(lr("policy"))
	create(cm("d"))
	create(cm("e"))
	check("after a limit range write", written)
	if p.revs[len(p.revs)-1] <= written {
		t.Fatalf("the admission's revision %d is not past the limit range's %d", p.revs[len(p.revs)-1], written)
	}
	if err := c.Delete(ctx, limitRanges, "default", "policy", controllers.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deleted, _ := store.CurrentRevision(ctx)
	create(cm("f"))
	check("after a limit range delete", deleted)
	if got := (&Attributes{Revision: 7}).ReadRevision(limitRanges); got != 7 {
		t.Errorf("Attributes made outside the registry: read at %d, want 7", got)
	}
}
