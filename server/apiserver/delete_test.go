package apiserver

import (
	"context"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/registry"
)

const finalizedCM = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","finalizers":["example.com/hold"]},"data":{"k":"v"}}`

func TestFinalizersDelayDeletion(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, finalizedCM).must(t, http.StatusCreated)
	w := e.watch(t, cmPath+"?watch=true&resourceVersion=0", "")
	w.next(t, "ADDED", "held")

	obj := e.delete(cmPath+"/held").must(t, http.StatusAccepted).obj(t)
	if jget(obj, "metadata.deletionTimestamp") == nil {
		t.Fatalf("got %v, want a deletionTimestamp while finalizers remain", obj["metadata"])
	}
	w.next(t, "MODIFIED", "held")
	e.get(cmPath+"/held").must(t, http.StatusOK)
	again := e.delete(cmPath+"/held").must(t, http.StatusAccepted).obj(t)
	if jget(again, "metadata.deletionTimestamp") != jget(obj, "metadata.deletionTimestamp") {
		t.Fatal("a second delete changed the deletionTimestamp")
	}
	e.patch(cmPath+"/held", mediaMergePatch, `{"metadata":{"deletionTimestamp":null,"labels":{"a":"b"}}}`).must(t, http.StatusOK)
	if jget(e.get(cmPath+"/held").obj(t), "metadata.deletionTimestamp") == nil {
		t.Fatal("a patch cleared the deletionTimestamp")
	}
	w.next(t, "MODIFIED", "held")

	e.patch(cmPath+"/held", mediaMergePatch, `{"metadata":{"finalizers":null}}`).must(t, http.StatusOK)
	w.next(t, "MODIFIED", "held")
	w.next(t, "DELETED", "held")
	e.get(cmPath+"/held").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}

func TestDeletePreconditionsAndDryRun(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, manifest(t, "configmaps", "x")).must(t, http.StatusCreated)
	e.do(req{method: "DELETE", path: cmPath + "/x", body: `{"preconditions":{"uid":"not-it"}}`}).status(t, http.StatusConflict, metav1.StatusReasonConflict)
	e.do(req{method: "DELETE", path: cmPath + "/x?dryRun=All"}).must(t, http.StatusOK)
	e.get(cmPath+"/x").must(t, http.StatusOK)
	e.do(req{method: "DELETE", path: cmPath + "/x", body: `{"propagationPolicy":"Sideways"}`}).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	e.do(req{method: "DELETE", path: cmPath + "/x", body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}`}).must(t, http.StatusOK)
	e.delete(cmPath+"/x").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}

func TestDeleteCollection(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, cmJSON("a", nil, map[string]string{"tier": "web"})).must(t, http.StatusCreated)
	e.post(cmPath, cmJSON("b", nil, map[string]string{"tier": "web"})).must(t, http.StatusCreated)
	e.post(cmPath, cmJSON("c", nil, map[string]string{"tier": "db"})).must(t, http.StatusCreated)
	list := e.delete(cmPath+"?labelSelector=tier%3Dweb").must(t, http.StatusOK).obj(t)
	if list["kind"] != "ConfigMapList" || len(list["items"].([]any)) != 2 {
		t.Fatalf("got %v, want a ConfigMapList of the 2 deleted", list)
	}
	if names := listNames(t, e, cmPath+"?limit=10"); len(names) != 1 || names[0] != "c" {
		t.Fatalf("got %v left, want [c]", names)
	}
}

func TestNamespaceDeletionRemovesContents(t *testing.T) {
	e := newTestEnv(t)
	e.post("/api/v1/namespaces", manifest(t, "namespaces", "team")).must(t, http.StatusCreated)
	ns := "/api/v1/namespaces/team"
	e.post(ns+"/configmaps", manifest(t, "configmaps", "c1")).must(t, http.StatusCreated)
	e.post(ns+"/pods", manifest(t, "pods", "p1")).must(t, http.StatusCreated)
	e.post("/apis/apps/v1/namespaces/team/deployments", manifest(t, "deployments", "d1")).must(t, http.StatusCreated)
	e.post(ns+"/configmaps", finalizedCM).must(t, http.StatusCreated)

	obj := e.delete(ns).must(t, http.StatusOK).obj(t)
	if jget(obj, "status.phase") != "Terminating" {
		t.Fatalf("got phase %v, want Terminating", jget(obj, "status.phase"))
	}
	if left := countKeys(t, e, "team"); left != 1 {
		t.Fatalf("got %d objects left in team, want only the finalized configmap", left)
	}
	st := e.post(ns+"/configmaps", manifest(t, "configmaps", "late")).status(t, http.StatusForbidden, metav1.StatusReasonForbidden)
	wantMessage(t, st, "being terminated")

	e.patch(ns+"/configmaps/held", mediaMergePatch, `{"metadata":{"finalizers":[]}}`).must(t, http.StatusOK)
	e.get(ns+"/configmaps/held").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	e.get(ns).status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	if left := countKeys(t, e, "team"); left != 0 {
		t.Fatalf("got %d objects left in team, want 0", left)
	}
	e.delete("/api/v1/namespaces/default").status(t, http.StatusForbidden, metav1.StatusReasonForbidden)
}

// countKeys counts the stored objects in namespace ns across resources.
func countKeys(t *testing.T, e *testEnv, ns string) int {
	t.Helper()
	n := 0
	for _, res := range api.All() {
		if !res.Namespaced {
			continue
		}
		page, err := e.store.List(context.Background(), res.Prefix(ns), datastore.ListOptions{})
		if err != nil {
			t.Fatalf("list %s: %v", res.Name, err)
		}
		n += len(page.Items)
	}
	return n
}

func TestSystemNamespacesExist(t *testing.T) {
	e := newTestEnv(t)
	for _, ns := range registry.SystemNamespaces {
		obj := e.get("/api/v1/namespaces/"+ns).must(t, http.StatusOK).obj(t)
		if jget(obj, "status.phase") != "Active" {
			t.Fatalf("namespace %s: got phase %v, want Active", ns, jget(obj, "status.phase"))
		}
	}
	if _, err := NewAPI(context.Background(), APIConfig{Store: e.store, Authn: tokenAuthn{}, Authz: roleAuthz{}}); err != nil {
		t.Fatalf("NewAPI on a store that has the namespaces: %v", err)
	}
	if _, err := NewAPI(context.Background(), APIConfig{Store: e.store}); err == nil {
		t.Fatal("NewAPI without Authn and Authz: got nil error")
	}
}
