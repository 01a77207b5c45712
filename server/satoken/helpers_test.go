package satoken

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/auth"
)

// objects is a hand-written Objects: a map by resource, namespace, name.
type objects struct {
	mu sync.Mutex
	m  map[string]api.Object
}

func (o *objects) k(res *api.Resource, ns, name string) string {
	return res.Name + "/" + ns + "/" + name
}

func (o *objects) Get(_ context.Context, res *api.Resource, ns, name string) (api.Object, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if obj, ok := o.m[o.k(res, ns, name)]; ok {
		return obj, nil
	}
	return nil, apierrors.NewNotFound(res.GroupResource(), name)
}

func (o *objects) put(res *api.Resource, obj api.Object) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[string]api.Object{}
	}
	o.m[o.k(res, obj.GetNamespace(), obj.GetName())] = obj
}

func (o *objects) del(res *api.Resource, ns, name string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.m, o.k(res, ns, name))
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fixture is a store, objects (ns "team" with ServiceAccount "robot" and
// pod "web" running as it) and a clock shared by the Tokens of a test.
type fixture struct {
	store datastore.Store
	objs  *objects
	clock *clock
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	st, err := datastore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "db"), datastore.SQLiteConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{store: st, objs: &objects{}, clock: &clock{t: time.Now()}}
	f.objs.put(serviceAccounts, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot", Namespace: "team", UID: "sa-1"}})
	f.objs.put(podsResource, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team", UID: "pod-1"},
		Spec: corev1.PodSpec{ServiceAccountName: "robot", NodeName: "n1"}})
	f.objs.put(nodesResource, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "node-1"}})
	return f
}

// tokens makes a Tokens whose key lives in dir.
func (f *fixture) tokens(t testing.TB, dir string) *Tokens {
	t.Helper()
	tk, err := New(context.Background(), Config{Dir: dir, Store: f.store, Objects: f.objs, Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// issue asks tk for a token of team/robot bound to pod web (bound=true).
func issue(t testing.TB, tk *Tokens, bound bool, audiences ...string) string {
	t.Helper()
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: audiences}}
	if bound {
		req.Spec.BoundObjectRef = &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "web", UID: types.UID("pod-1")}
	}
	out, err := tk.Issue(context.Background(), "team", "robot", req)
	if err != nil {
		t.Fatal(err)
	}
	return out.Status.Token
}

// wantRefused fails unless token is refused as unauthenticated.
func wantRefused(t testing.TB, tk *Tokens, token, why string) {
	t.Helper()
	u, err := tk.AuthenticateToken(context.Background(), token)
	if !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("%s: got user %v, err %v; want refused", why, u, err)
	}
}
