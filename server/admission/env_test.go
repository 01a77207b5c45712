package admission

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"fmt"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/server/registry"
	"github.com/bramble-edge/bramble/server/registry/registrytest"
)

// newRegistry is the real registry on a SQLite store in a temporary
// folder, with the policy plugins installed.
func newRegistry(t testing.TB) (*registry.Registry, *registry.Client) {
	t.Helper()
	reg := registrytest.New(t)
	ctx := context.Background()
	if err := InstallPolicy(ctx, reg); err != nil {
		t.Fatalf("InstallPolicy: %v", err)
	}
	return reg, reg.Client()
}

// pod is a one-container pod; resources alternate name, quantity for
// requests ("requests.cpu", "100m") and limits ("limits.cpu", "1").
func pod(name string, resources ...string) *corev1.Pod {
	c := corev1.Container{Name: "app", Image: "busybox"}
	for i := 0; i+1 < len(resources); i += 2 {
		q := resource.MustParse(resources[i+1])
		switch kind, res := splitResource(resources[i]); kind {
		case "requests":
			if c.Resources.Requests == nil {
				c.Resources.Requests = corev1.ResourceList{}
			}
			c.Resources.Requests[res] = q
		case "limits":
			if c.Resources.Limits == nil {
				c.Resources.Limits = corev1.ResourceList{}
			}
			c.Resources.Limits[res] = q
		}
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{c}}}
}

func splitResource(s string) (string, corev1.ResourceName) {
	for i := range s {
		if s[i] == '.' {
			return s[:i], corev1.ResourceName(s[i+1:])
		}
	}
	return s, ""
}

// hard is a ResourceList from name, quantity pairs.
func hard(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func mustCreate(t testing.TB, c *registry.Client, obj api.Object) api.Object {
	t.Helper()
	got, err := c.Create(context.Background(), obj)
	if err != nil {
		t.Fatalf("create %s: %v", obj.GetName(), err)
	}
	return got
}

func wantError(t testing.TB, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want {
		t.Fatalf("got error %v, want %q", err, want)
	}
}

var (
	podsRes = api.MustLookup("", "v1", "pods")
	listAll = registry.ListOptions{}
)

// BenchmarkCreatePod creates pods through the registry on SQLite with the
// server's shared cache: without the policy plugins, with them and no
// policy objects in the namespace, and with a LimitRange and a quota the
// pods stay within (usage recomputed per create).
func BenchmarkCreatePod(b *testing.B) {
	for _, mode := range []string{"plain", "plugins", "quota"} {
		b.Run(mode, func(b *testing.B) {
			reg := benchRegistry(b, mode != "plain")
			c := reg.Client()
			if mode == "quota" {
				mustCreate(b, c, quotaObj("q", hard("pods", "1000000", "requests.cpu", "100000")))
				mustCreate(b, c, limitRange(corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, DefaultRequest: hard("cpu", "10m")}))
			}
			b.ResetTimer()
			for i := range b.N {
				mustCreate(b, c, pod(fmt.Sprintf("p%d", i)))
			}
		})
	}
}

func benchRegistry(b testing.TB, policy bool) *registry.Registry {
	ctx, cancel := context.WithCancel(context.Background())
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := datastore.OpenSQLite(ctx, filepath.Join(b.TempDir(), "state.db"),
		datastore.SQLiteConfig{Logger: quiet, CompactInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	cache := informer.New(store, informer.Config{Logger: quiet})
	for _, res := range api.All() {
		cache.Informer(res)
	}
	cache.Start(ctx)
	b.Cleanup(func() { cancel(); cache.Stop(); store.Close() })
	reg, err := registry.New(ctx, registry.Config{Store: store, Log: quiet, Cache: cache})
	if err != nil {
		b.Fatal(err)
	}
	if policy {
		if err := InstallPolicy(ctx, reg); err != nil {
			b.Fatal(err)
		}
	}
	return reg
}

// BenchmarkCreateConfigMapsParallel: 32 writers at once, without and with
// the plugins (every namespaced create asks for the namespace's quotas).
func BenchmarkCreateConfigMapsParallel(b *testing.B) {
	for _, mode := range []string{"plain", "plugins"} {
		b.Run(mode, func(b *testing.B) {
			c := benchRegistry(b, mode == "plugins").Client()
			var n atomic.Int64
			b.SetParallelism(16)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm%d", n.Add(1)), Namespace: "default"}}
					mustCreate(b, c, cm)
				}
			})
		})
	}
}

// BenchmarkCreatePodDryRun is the admission of a ReplicaSet's pod with
// the policy plugins (no policy objects): defaults, validation and the
// plugins' reads of the shared cache, without the store write.
func BenchmarkCreatePodDryRun(b *testing.B) {
	reg := benchRegistry(b, true)
	ctx, isController := context.Background(), true
	b.ReportAllocs()
	for range b.N {
		p := pod("", "requests.cpu", "10m", "requests.memory", "16Mi")
		p.GenerateName = "web-7d4b9c-"
		p.Labels = map[string]string{"app": "web", "pod-template-hash": "7d4b9c"}
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d4b9c",
			UID: "4c1e8a52-0b8e-4a43-9d53-1f0c8a9e2b11", Controller: &isController}}
		if _, err := reg.CreateNew(ctx, podsRes, "default", p, nil, registry.WriteOptions{DryRun: true}); err != nil {
			b.Fatal(err)
		}
	}
}
