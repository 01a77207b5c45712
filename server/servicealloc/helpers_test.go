package servicealloc

import (
	"context"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/registry"
)

// env is a registry on SQLite in dir with an allocator in front.
type env struct {
	reg   *registry.Registry
	alloc *Allocator
	store datastore.Store
}

func openEnv(t testing.TB, dir string, cfg Config) *env {
	t.Helper()
	ctx := context.Background()
	store, err := datastore.OpenSQLite(ctx, filepath.Join(dir, "state.db"), datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatalf("open datastore: %v", err)
	}
	reg, err := registry.New(ctx, registry.Config{Store: store})
	if err != nil {
		t.Fatalf("registry: %v", err)
	}
	a, err := New(reg, cfg)
	if err != nil {
		t.Fatalf("allocator: %v", err)
	}
	if err := a.Load(ctx); err != nil {
		t.Fatalf("load: %v", err)
	}
	reg.Use(a)
	return &env{reg: reg, alloc: a, store: store}
}

func newEnv(t testing.TB, cfg Config) *env {
	t.Helper()
	e := openEnv(t, t.TempDir(), cfg)
	t.Cleanup(func() { e.store.Close() })
	return e
}

func smallCIDR(t testing.TB, s string) Config {
	t.Helper()
	return Config{ServiceCIDR: netip.MustParsePrefix(s)}
}

// svc builds a Service; ports are "80" or "80:30080".
func svc(name string, typ corev1.ServiceType, clusterIP string, ports ...int32) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.ServiceSpec{Type: typ, ClusterIP: clusterIP, Selector: map[string]string{"app": name}}}
	for i := 0; i+1 < len(ports); i += 2 {
		s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "p" + string(rune('a'+i/2)), Port: ports[i], NodePort: ports[i+1]})
	}
	return s
}

func (e *env) create(t testing.TB, s *corev1.Service) (*corev1.Service, error) {
	t.Helper()
	out, err := e.reg.Client().Create(context.Background(), s)
	if err != nil {
		return nil, err
	}
	return out.(*corev1.Service), nil
}

func (e *env) mustCreate(t testing.TB, s *corev1.Service) *corev1.Service {
	t.Helper()
	out, err := e.create(t, s)
	if err != nil {
		t.Fatalf("create %s: %v", s.Name, err)
	}
	return out
}

func (e *env) delete(t testing.TB, name string) {
	t.Helper()
	if _, err := e.reg.Delete(context.Background(), api.ServiceResource, "default", name, nil); err != nil {
		t.Fatalf("delete %s: %v", name, err)
	}
}

// wantInvalid fails unless err is a 422 whose message holds want.
func wantInvalid(t testing.TB, err error, want string) {
	t.Helper()
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want 422 with %q", err, want)
	}
}
