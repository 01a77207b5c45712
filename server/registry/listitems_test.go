package registry

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/api"
)

// TestListItemsIsListsItems: ListItems gives the objects List does, in
// the same order, from the shared cache and without one, selectors and a
// limit the cache leaves to the datastore included.
func TestListItemsIsListsItems(t *testing.T) {
	ctx, cached, _, cache := cachedRegistry(t)
	plain := newTestRegistry(t)
	cms := api.MustLookup("", "v1", "configmaps")
	var rev int64
	for _, r := range []*Registry{cached, plain} {
		for i := range 5 {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", 4-i), Namespace: "default",
				Labels: map[string]string{"odd": fmt.Sprint(i%2 == 1)}}}
			out, err := r.Create(ctx, cms, "default", cm, WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rev, _ = ParseResourceVersion(out.GetResourceVersion())
		}
	}
	if err := cache.WaitForRevision(ctx, rev); err != nil {
		t.Fatal(err)
	}
	names := func(items []api.Object) string {
		var s []string
		for _, o := range items {
			s = append(s, o.GetNamespace()+"/"+o.GetName())
		}
		return fmt.Sprint(s)
	}
	for _, r := range []*Registry{cached, plain} {
		for _, lo := range []ListOptions{{}, {Labels: labels.SelectorFromSet(labels.Set{"odd": "true"})}, {Limit: 2}} {
			for _, ns := range []string{"", "default", "other"} {
				l, err := r.List(ctx, cms, ns, lo)
				if err != nil {
					t.Fatal(err)
				}
				items, err := r.ListItems(ctx, cms, ns, lo)
				if err != nil {
					t.Fatal(err)
				}
				if ns == "default" && lo.Labels == nil && lo.Limit == 0 && len(items) != 5 {
					t.Errorf("cache %v: got %d config maps, want 5", r.cache != nil, len(items))
				}
				if got, want := names(items), names(l.Items); got != want {
					t.Errorf("cache %v, namespace %q, %+v: got %s, want %s", r.cache != nil, ns, lo, got, want)
				}
			}
		}
	}
}
