package registry

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
)

const widgetBody = `{"apiVersion":"demo.bramble.dev/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default"},
"spec":{"size":3,"bogus":1,"extra":{"free":true},"template":{"apiVersion":"v1","kind":"Pod","x":1}},"status":{"phase":"x"}}`

// TestCRDEstablishesItsKinds: creating a definition names and establishes
// it and serves both versions; its objects are defaulted, pruned,
// validated and readable in either version.
func TestCRDEstablishesItsKinds(t *testing.T) {
	r := newTestRegistry(t)
	ctx := context.Background()
	res := createWidgetCRD(t, r)
	got, err := r.Get(ctx, crdResource, "", "widgets.demo.bramble.dev")
	if err != nil {
		t.Fatal(err)
	}
	crd := got.(*apiextv1.CustomResourceDefinition)
	for _, c := range []apiextv1.CustomResourceDefinitionConditionType{apiextv1.NamesAccepted, apiextv1.Established} {
		if cond := api.CRDCondition(crd, c); cond == nil || cond.Status != apiextv1.ConditionTrue {
			t.Fatalf("condition %s: got %+v, want True", c, cond)
		}
	}
	if crd.Status.AcceptedNames.Plural != "widgets" || strings.Join(crd.Status.StoredVersions, ",") != "v1" {
		t.Fatalf("status: got %+v", crd.Status)
	}
	obj, warns := decodeWidget(t, res, widgetBody)
	if len(warns) != 1 || warns[0] != `unknown field "spec.bogus"` {
		t.Fatalf("warnings: got %q, want the pruned spec.bogus", warns)
	}
	stored, err := r.Create(ctx, res, "default", obj, WriteOptions{})
	if err != nil {
		t.Fatalf("create widget: %v", err)
	}
	for path, want := range map[string]string{"spec.color": `"green"`, "spec.replicas": "1", "spec.bogus": "absent",
		"spec.extra.free": "true", "spec.template.x": "1", "status": "absent"} {
		if got := nested(t, stored, strings.Split(path, ".")...); got != want {
			t.Errorf("%s: got %s, want %s", path, got, want)
		}
	}
	beta, _ := r.Kinds().Lookup("demo.bramble.dev", "v1beta1", "widgets")
	other, err := r.Get(ctx, beta, "default", "w1")
	if err != nil || other.GetObjectKind().GroupVersionKind().Version != "v1beta1" {
		t.Fatalf("get as v1beta1: %v, %v", err, other)
	}
}

// TestCRDSchemaRefusesInvalidObjects: each broken field is named in a 422
// as upstream names it.
func TestCRDSchemaRefusesInvalidObjects(t *testing.T) {
	r := newTestRegistry(t)
	res := createWidgetCRD(t, r)
	for _, tc := range []struct{ spec, want string }{
		{`{}`, "spec.size: Required value"},
		{`{"size":"big"}`, `spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"`},
		{`{"size":11}`, "spec.size in body should be less than or equal to 10"},
		{`{"size":0}`, "spec.size in body should be greater than or equal to 1"},
		{`{"size":1,"color":"pink"}`, `spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"`},
		{`{"size":1,"label":"ABC"}`, "spec.label in body should match '^[a-z]+$'"},
		{`{"size":1,"label":"abcdefghijkl"}`, "spec.label: Too long"},
		{`{"size":1,"label":"a"}`, "spec.label in body should be at least 2 chars long"},
		{`{"size":1,"rate":0}`, "spec.rate in body should be greater than 0"},
		{`{"size":1,"ports":[1,2,3,4]}`, "spec.ports: Too many"},
		{`{"size":1,"ports":[1,1]}`, "spec.ports[1]: Duplicate value"},
		{`{"size":1,"amount":true}`, "spec.amount in body must be of type integer,string"},
		{`{"size":1,"tags":{"a":1}}`, "spec.tags[a] in body must be of type string"},
		{`{"size":1,"ports":[null]}`, `spec.ports[0] in body must be of type integer: "null"`},
		{`{"size":1,"template":{"kind":"Pod"}}`, "spec.template.apiVersion: Required value"},
	} {
		obj, _ := decodeWidget(t, res, `{"metadata":{"name":"bad","namespace":"default"},"spec":`+tc.spec+`}`)
		_, err := r.Create(context.Background(), res, "default", obj, WriteOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("spec %s: got %v, want 422 with %q", tc.spec, err, tc.want)
		}
	}
	obj, _ := decodeWidget(t, res, `{"metadata":{"name":"ok","namespace":"default"},"spec":{"size":1,"amount":"5%","note":null,"label":null,"color":null,"tags":{"a":"b"}}}`)
	ok, err := r.Create(context.Background(), res, "default", obj, WriteOptions{})
	if err != nil {
		t.Fatalf("valid widget: %v", err)
	}
	if got := nested(t, ok, "spec", "note") + nested(t, ok, "spec", "label") + nested(t, ok, "spec", "color"); got != `nullabsent"green"` {
		t.Fatalf("nulls: got note, label, color %s, want kept, dropped, defaulted", got)
	}
}

// TestCRDStatusSubresource: status writes keep the generation and spec;
// spec writes bump it and keep the status.
func TestCRDStatusSubresource(t *testing.T) {
	r := newTestRegistry(t)
	ctx := context.Background()
	res := createWidgetCRD(t, r)
	obj, _ := decodeWidget(t, res, widgetBody)
	if _, err := r.Create(ctx, res, "default", obj, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	st, _ := decodeWidget(t, res, `{"metadata":{"name":"w1","namespace":"default"},"spec":{"size":9},"status":{"phase":"Ready","replicas":2}}`)
	w, err := r.Update(ctx, res, "default", "w1", "status", st, false)
	if err != nil || w.GetGeneration() != 1 || nested(t, w, "status", "phase") != `"Ready"` || nested(t, w, "spec", "size") != "3" {
		t.Fatalf("status update: %v, generation %d, %s", err, w.GetGeneration(), nested(t, w, "spec"))
	}
	spec, _ := decodeWidget(t, res, `{"metadata":{"name":"w1","namespace":"default"},"spec":{"size":4},"status":{"phase":"Gone"}}`)
	w, err = r.Update(ctx, res, "default", "w1", "", spec, false)
	if err != nil || w.GetGeneration() != 2 || nested(t, w, "status", "phase") != `"Ready"` {
		t.Fatalf("spec update: %v, generation %d, status %s", err, w.GetGeneration(), nested(t, w, "status"))
	}
	sel := fields.OneTermEqualSelector("spec.color", "green")
	list, err := r.List(ctx, res, "default", ListOptions{Fields: sel})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("field selector spec.color=green: %v, %d items", err, len(list.Items))
	}
	if _, err := api.ParseFieldSelector(res, "spec.size=1"); err == nil {
		t.Fatal("spec.size is not a selectable field, but the selector was accepted")
	}
}

// TestCRDScaleSubresource: the scale subresource reads and writes the
// CRD's replica paths.
func TestCRDScaleSubresource(t *testing.T) {
	r := newTestRegistry(t)
	ctx := context.Background()
	res := createWidgetCRD(t, r)
	obj, _ := decodeWidget(t, res, widgetBody)
	if _, err := r.Create(ctx, res, "default", obj, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	s, warns, err := r.UpdateScale(ctx, res, "default", "w1", func(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, []string, error) {
		cur.Spec.Replicas = 5
		return cur, nil, nil
	}, false)
	if err != nil || len(warns) != 0 || s.Spec.Replicas != 5 {
		t.Fatalf("scale to 5: %v, %+v", err, s)
	}
	w, _ := r.Get(ctx, res, "default", "w1")
	if got := nested(t, w, "spec", "replicas"); got != "5" || w.GetGeneration() != 2 {
		t.Fatalf("after scale: spec.replicas %s, generation %d; want 5, 2", got, w.GetGeneration())
	}
}

// TestCRDServerSideApplyListMap: two managers each own an item of a list
// the schema makes a map keyed by name, as upstream merges it.
func TestCRDServerSideApplyListMap(t *testing.T) {
	r := newTestRegistry(t)
	ctx := context.Background()
	res := createWidgetCRD(t, r)
	for _, m := range []struct{ manager, part string }{{"alice", `{"name":"a","value":1}`}, {"bob", `{"name":"b","value":2}`}} {
		body := `{"apiVersion":"demo.bramble.dev/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default"},"spec":{"size":2,"parts":[` + m.part + `]}}`
		if _, err := r.Apply(ctx, res, "default", "w1", "", []byte(body), WriteOptions{FieldManager: m.manager, Force: true}); err != nil {
			t.Fatalf("apply by %s: %v", m.manager, err)
		}
	}
	w, _ := r.Get(ctx, res, "default", "w1")
	if got := nested(t, w, "spec", "parts"); got != `[{"name":"a","value":1},{"name":"b","value":2}]` {
		t.Fatalf("parts: got %s, want both managers' items", got)
	}
}

// TestCRDFollowedAcrossServers: two registries on one datastore, each with
// its own cache, as two servers on etcd: a CRD created through one is
// served by the other, and its deletion stops it there too.
func TestCRDFollowedAcrossServers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"), datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	var regs []*Registry
	for i := 0; i < 2; i++ {
		cache := informer.New(store, informer.Config{})
		for _, res := range api.All() {
			cache.Informer(res)
		}
		cache.Start(ctx)
		t.Cleanup(cache.Stop)
		r, err := New(ctx, Config{Store: store, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		regs = append(regs, r)
	}
	t.Cleanup(func() { cancel(); store.Close() })
	createWidgetCRD(t, regs[0])
	waitServed(t, regs[1], true)
	if _, err := regs[0].Delete(ctx, crdResource, "", "widgets.demo.bramble.dev", nil); err != nil {
		t.Fatal(err)
	}
	waitServed(t, regs[1], false)
}

// waitServed waits (up to 10 s) until r serves widgets, or no longer does.
func waitServed(t *testing.T, r *Registry, want bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, ok := r.Kinds().Lookup("demo.bramble.dev", "v1beta1", "widgets"); ok == want {
			return
		}
	}
	t.Fatalf("the other registry serving widgets: got %v, want %v", !want, want)
}
