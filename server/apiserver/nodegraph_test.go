package apiserver

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
)

const referencingPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"user"},
 "spec":{"nodeName":"pi-1","imagePullSecrets":[{"name":"pull"}],
  "volumes":[{"name":"cfg","configMap":{"name":"vol-cm"}},
   {"name":"proj","projected":{"sources":[{"secret":{"name":"proj-secret"}}]}}],
  "containers":[{"name":"main","image":"nginx",
   "env":[{"name":"A","valueFrom":{"configMapKeyRef":{"name":"env-cm","key":"a"}}}],
   "envFrom":[{"secretRef":{"name":"envfrom-secret"}}]}]}}`

func TestNodeGraph(t *testing.T) {
	t.Run("datastore", func(t *testing.T) { testNodeGraph(t, false) })
	t.Run("cache", func(t *testing.T) { testNodeGraph(t, true) })
}

// testNodeGraph checks the graph on the datastore alone or with a shared
// cache; with the cache, the pods are created after it started, so its
// answers rely on catching up, never on a fallback read.
func testNodeGraph(t *testing.T, withCache bool) {
	e := newTestEnv(t)
	ctx := context.Background()
	var cache *informer.Cache
	if withCache {
		cache = informer.New(e.store, informer.Config{})
		cache.Informer(podsResource)
		cache.Start(ctx)
		t.Cleanup(cache.Stop)
		if !cache.WaitForSync(ctx) {
			t.Fatal("cache did not sync")
		}
	}
	e.post(podPath, referencingPod).must(t, http.StatusCreated)
	e.post(podPath, manifest(t, "pods", "loose")).must(t, http.StatusCreated)
	g := NewNodeGraph(e.store, cache)
	if node, err := g.PodNode(ctx, "default", "user"); err != nil || node != "pi-1" {
		t.Fatalf("PodNode(user): got %q, %v; want pi-1", node, err)
	}
	if node, err := g.PodNode(ctx, "default", "loose"); err != nil || node != "" {
		t.Fatalf("PodNode(loose): got %q, %v; want unbound", node, err)
	}
	if _, err := g.PodNode(ctx, "default", "nope"); !errors.Is(err, datastore.ErrNotFound) {
		t.Fatalf("PodNode(nope): got %v, want ErrNotFound", err)
	}
	cases := []struct {
		node, resource, name string
		want                 bool
	}{
		{"pi-1", "configmaps", "vol-cm", true},
		{"pi-1", "configmaps", "env-cm", true},
		{"pi-1", "secrets", "proj-secret", true},
		{"pi-1", "secrets", "envfrom-secret", true},
		{"pi-1", "secrets", "pull", true},
		{"pi-1", "secrets", "vol-cm", false},
		{"pi-1", "configmaps", "other", false},
		{"pi-2", "configmaps", "vol-cm", false},
		{"pi-1", "pods", "user", false},
	}
	for _, c := range cases {
		got, err := g.NodeReferences(ctx, c.node, c.resource, "default", c.name)
		if err != nil || got != c.want {
			t.Errorf("NodeReferences(%s, %s, %s): got %v, %v; want %v", c.node, c.resource, c.name, got, err, c.want)
		}
	}
}

func TestSecretGetter(t *testing.T) {
	e := newTestEnv(t)
	e.post("/api/v1/namespaces/kube-system/secrets", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tok"},"data":{"token":"c2VjcmV0"}}`).
		must(t, http.StatusCreated)
	get := NewSecretGetter(e.store)
	s, err := get(context.Background(), "kube-system", "tok")
	if err != nil || string(s.Data["token"]) != "secret" || s.ResourceVersion == "" {
		t.Fatalf("got %+v, %v; want the secret with token=secret", s, err)
	}
	if _, err := get(context.Background(), "kube-system", "nope"); !errors.Is(err, datastore.ErrNotFound) {
		t.Fatalf("got %v for a missing secret, want ErrNotFound", err)
	}
}
