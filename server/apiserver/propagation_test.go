package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

const rsPath = "/apis/apps/v1/namespaces/default/replicasets"

// finalizersOf reads an object's metadata.finalizers as strings.
func finalizersOf(t testing.TB, obj map[string]any) []string {
	t.Helper()
	raw, _ := jget(obj, "metadata.finalizers").([]any)
	out := make([]string, 0, len(raw))
	for _, f := range raw {
		out = append(out, f.(string))
	}
	return out
}

func wantFinalizers(t testing.TB, obj map[string]any, want ...string) {
	t.Helper()
	if got := finalizersOf(t, obj); !slices.Equal(got, want) {
		t.Fatalf("got finalizers %q, want %q", got, want)
	}
}

func TestDeletePropagationPolicies(t *testing.T) {
	cases := []struct {
		name, query, body string
		wantCode          int
		wantFinalizers    []string // nil: deleted at once
	}{
		{name: "default is background", wantCode: http.StatusOK},
		{name: "background query", query: "?propagationPolicy=Background", wantCode: http.StatusOK},
		{name: "foreground query", query: "?propagationPolicy=Foreground", wantCode: http.StatusAccepted,
			wantFinalizers: []string{"foregroundDeletion"}},
		{name: "foreground body", body: `{"propagationPolicy":"Foreground"}`, wantCode: http.StatusAccepted,
			wantFinalizers: []string{"foregroundDeletion"}},
		{name: "orphan body", body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan"}`,
			wantCode: http.StatusAccepted, wantFinalizers: []string{"orphan"}},
		{name: "legacy orphanDependents", body: `{"orphanDependents":true}`, wantCode: http.StatusAccepted,
			wantFinalizers: []string{"orphan"}},
		{name: "legacy orphanDependents query", query: "?orphanDependents=true", wantCode: http.StatusAccepted,
			wantFinalizers: []string{"orphan"}},
		{name: "legacy orphanDependents false", body: `{"orphanDependents":false}`, wantCode: http.StatusOK},
	}
	e := newTestEnv(t)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("rs-%d", i)
			e.post(rsPath, manifest(t, "replicasets", name)).must(t, http.StatusCreated)
			var body any
			if tc.body != "" {
				body = tc.body
			}
			obj := e.do(req{method: "DELETE", path: rsPath + "/" + name + tc.query, body: body}).must(t, tc.wantCode).obj(t)
			if tc.wantFinalizers == nil {
				e.get(rsPath+"/"+name).status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
				return
			}
			wantFinalizers(t, obj, tc.wantFinalizers...)
			stored := e.get(rsPath+"/"+name).must(t, http.StatusOK).obj(t)
			wantFinalizers(t, stored, tc.wantFinalizers...)
			if jget(stored, "metadata.deletionTimestamp") == nil {
				t.Fatal("got no deletionTimestamp, want one while the propagation finalizer remains")
			}
			// What the garbage collector does when it is finished.
			e.patch(rsPath+"/"+name, mediaMergePatch, `{"metadata":{"finalizers":null}}`).must(t, http.StatusOK)
			e.get(rsPath+"/"+name).status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
		})
	}
}

func TestDeletePropagationRefusesBadOptions(t *testing.T) {
	e := newTestEnv(t)
	e.post(rsPath, manifest(t, "replicasets", "x")).must(t, http.StatusCreated)
	st := e.do(req{method: "DELETE", path: rsPath + "/x", body: `{"orphanDependents":true,"propagationPolicy":"Foreground"}`}).
		status(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	wantMessage(t, st, "propagationPolicy", "cannot be both set")
	st = e.do(req{method: "DELETE", path: rsPath + "/x?orphanDependents=maybe"}).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	wantMessage(t, st, "orphanDependents")
	e.get(rsPath+"/x").must(t, http.StatusOK)
}

func TestSecondDeleteChangesPolicy(t *testing.T) {
	e := newTestEnv(t)
	e.post(rsPath, manifest(t, "replicasets", "x")).must(t, http.StatusCreated)
	first := e.delete(rsPath+"/x?propagationPolicy=Foreground").must(t, http.StatusAccepted).obj(t)
	again := e.delete(rsPath+"/x?propagationPolicy=Foreground").must(t, http.StatusAccepted).obj(t)
	if jget(again, "metadata.resourceVersion") != jget(first, "metadata.resourceVersion") {
		t.Fatal("a repeated Foreground delete wrote the object again")
	}
	// Without a policy, the finalizer the object carries decides.
	wantFinalizers(t, e.delete(rsPath+"/x").must(t, http.StatusAccepted).obj(t), "foregroundDeletion")

	orphan := e.delete(rsPath+"/x?propagationPolicy=Orphan").must(t, http.StatusAccepted).obj(t)
	wantFinalizers(t, orphan, "orphan")
	if jget(orphan, "metadata.deletionTimestamp") != jget(first, "metadata.deletionTimestamp") {
		t.Fatalf("got deletionTimestamp %v, want the first delete's %v", jget(orphan, "metadata.deletionTimestamp"), jget(first, "metadata.deletionTimestamp"))
	}
	e.delete(rsPath+"/x?propagationPolicy=Background").must(t, http.StatusOK)
	e.get(rsPath+"/x").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}

func TestPropagationKeepsOtherFinalizers(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, finalizedCM).must(t, http.StatusCreated)
	wantFinalizers(t, e.delete(cmPath+"/held?propagationPolicy=Foreground").must(t, http.StatusAccepted).obj(t),
		"example.com/hold", "foregroundDeletion")
	wantFinalizers(t, e.delete(cmPath+"/held?propagationPolicy=Background").must(t, http.StatusAccepted).obj(t),
		"example.com/hold")
	e.patch(cmPath+"/held", mediaMergePatch, `{"metadata":{"finalizers":null}}`).must(t, http.StatusOK)
	e.get(cmPath+"/held").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}

func TestDryRunDeleteWithPolicyChangesNothing(t *testing.T) {
	e := newTestEnv(t)
	e.post(rsPath, manifest(t, "replicasets", "x")).must(t, http.StatusCreated)
	dry := e.delete(rsPath+"/x?propagationPolicy=Orphan&dryRun=All").must(t, http.StatusAccepted).obj(t)
	wantFinalizers(t, dry, "orphan")
	stored := e.get(rsPath+"/x").must(t, http.StatusOK).obj(t)
	if jget(stored, "metadata.deletionTimestamp") != nil || len(finalizersOf(t, stored)) != 0 {
		t.Fatalf("got %v after a dry run, want the object untouched", stored["metadata"])
	}
}

func TestInProcessDeleteWithPolicy(t *testing.T) {
	e := newTestEnv(t)
	e.post(rsPath, manifest(t, "replicasets", "x")).must(t, http.StatusCreated)
	res, _ := api.Lookup("apps", "v1", "replicasets")
	fg := metav1.DeletePropagationForeground
	out, err := e.api.Registry().Delete(context.Background(), res, "default", "x",
		&registry.DeleteOptions{DeleteOptions: &metav1.DeleteOptions{PropagationPolicy: &fg}})
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	if got := out.GetFinalizers(); !slices.Equal(got, []string{"foregroundDeletion"}) {
		t.Fatalf("got finalizers %q, want [foregroundDeletion]", got)
	}
}

func TestNamespaceDeletionWithPropagation(t *testing.T) {
	e := newTestEnv(t)
	e.post("/api/v1/namespaces", manifest(t, "namespaces", "team")).must(t, http.StatusCreated)
	ns := "/api/v1/namespaces/team"
	rs := "/apis/apps/v1/namespaces/team/replicasets"
	e.post(rs, manifest(t, "replicasets", "r1")).must(t, http.StatusCreated)
	e.post(rs, manifest(t, "replicasets", "r2")).must(t, http.StatusCreated)
	// r2 waits for the garbage collector, which is not running here; the
	// namespace deletes it in Background anyway.
	e.delete(rs+"/r2?propagationPolicy=Orphan").must(t, http.StatusAccepted)

	obj := e.delete(ns+"?propagationPolicy=Foreground").must(t, http.StatusOK).obj(t)
	wantFinalizers(t, obj, "foregroundDeletion")
	if left := countKeys(t, e, "team"); left != 0 {
		t.Fatalf("got %d objects left in team, want 0", left)
	}
	e.get(ns).must(t, http.StatusOK)
	e.patch(ns, mediaMergePatch, `{"metadata":{"finalizers":null}}`).must(t, http.StatusOK)
	e.get(ns).status(t, http.StatusNotFound, metav1.StatusReasonNotFound)

	e.post("/api/v1/namespaces", manifest(t, "namespaces", "plain")).must(t, http.StatusCreated)
	e.delete("/api/v1/namespaces/plain").must(t, http.StatusOK)
	e.get("/api/v1/namespaces/plain").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}
