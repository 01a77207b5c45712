package apiserver

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/auth"
)

func TestPublicEndpointsNeedNoCredentials(t *testing.T) {
	e := newTestEnv(t)
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		r := e.do(req{method: "GET", path: p, token: "none"}).must(t, http.StatusOK)
		if string(r.body) != "ok" || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
			t.Fatalf("%s: got %q (%s), want ok as text/plain", p, r.body, r.header.Get("Content-Type"))
		}
	}
	v := e.do(req{method: "GET", path: "/version?timeout=5s", token: "none"}).must(t, http.StatusOK).obj(t)
	if v["major"] != "1" || v["minor"] != "32" || !strings.HasPrefix(v["gitVersion"].(string), "v1.32.") {
		t.Fatalf("got version %v, want major 1 minor 32 gitVersion v1.32.x", v)
	}
}

func TestReadyzFailsWhenStoreIsClosed(t *testing.T) {
	e := newTestEnv(t)
	e.store.Close()
	r := e.do(req{method: "GET", path: "/readyz", token: "none"})
	if r.code != http.StatusServiceUnavailable || !strings.Contains(string(r.body), "datastore") {
		t.Fatalf("got %d %q, want 503 naming the datastore", r.code, r.body)
	}
}

func TestAuthenticationAndAuthorization(t *testing.T) {
	e := newTestEnv(t)
	e.do(req{method: "GET", path: "/api/v1/namespaces", token: "none"}).status(t, http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
	e.do(req{method: "GET", path: "/api", token: "bogus"}).status(t, http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
	e.do(req{method: "GET", path: cmPath, token: "viewer-token"}).must(t, http.StatusOK)
	st := e.do(req{method: "POST", path: cmPath, token: "viewer-token", body: manifest(t, "configmaps", "x")}).
		status(t, http.StatusForbidden, metav1.StatusReasonForbidden)
	if !strings.Contains(st.Message, `configmaps is forbidden`) || !strings.Contains(st.Message, "alice") {
		t.Fatalf("got message %q, want it to name the resource and the user", st.Message)
	}
}

func TestLegacyDiscovery(t *testing.T) {
	e := newTestEnv(t)
	var versions metav1.APIVersions
	e.get("/api").must(t, http.StatusOK).into(t, &versions)
	if len(versions.Versions) != 1 || versions.Versions[0] != "v1" {
		t.Fatalf("got /api versions %v, want [v1]", versions.Versions)
	}
	var groups metav1.APIGroupList
	e.get("/apis").must(t, http.StatusOK).into(t, &groups)
	var names []string
	for _, g := range groups.Groups {
		names = append(names, g.Name+"="+g.PreferredVersion.GroupVersion)
	}
	if got, want := strings.Join(names, ","), strings.Join(namedGroups(), ","); got != want || !strings.Contains(got, "apps=apps/v1,batch=batch/v1") {
		t.Fatalf("got groups %v, want %v", got, want)
	}
	core := resourcesByName(t, e, "/api/v1")
	if cm := core["configmaps"]; cm.Kind != "ConfigMap" || !cm.Namespaced || strings.Join(cm.ShortNames, ",") != "cm" || len(cm.Verbs) != 8 {
		t.Fatalf("got configmaps entry %+v", cm)
	}
	if pods := core["pods"]; strings.Join(pods.Categories, ",") != "all" {
		t.Fatalf("got pods categories %v, want [all]", pods.Categories)
	}
	if l := core["pods/log"]; l.Kind != "Pod" || strings.Join(l.Verbs, ",") != "get" {
		t.Fatalf("got pods/log entry %+v", l)
	}
	apps := resourcesByName(t, e, "/apis/apps/v1")
	if s := apps["deployments/scale"]; s.Kind != "Scale" || s.Group != "autoscaling" || s.Version != "v1" {
		t.Fatalf("got deployments/scale entry %+v, want autoscaling/v1 Scale", s)
	}
	if d := apps["deployments"]; strings.Join(d.ShortNames, ",") != "deploy" || strings.Join(d.Categories, ",") != "all" {
		t.Fatalf("got deployments entry %+v", d)
	}
	e.get("/apis/apps").must(t, http.StatusOK)
	e.get("/apis/nope/v1").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}

// namedGroups lists the built-in named groups as "group=group/version",
// in the order discovery lists them.
func namedGroups() []string {
	var out []string
	for _, gv := range api.GroupVersions() {
		if gv.Group != "" {
			out = append(out, gv.Group+"="+gv.String())
		}
	}
	return out
}

// groupDiscovery finds one group of an aggregated discovery list.
func groupDiscovery(list apidiscoveryv2.APIGroupDiscoveryList, name string) apidiscoveryv2.APIGroupDiscovery {
	for _, g := range list.Items {
		if g.Name == name {
			return g
		}
	}
	return apidiscoveryv2.APIGroupDiscovery{}
}

func resourcesByName(t *testing.T, e *testEnv, path string) map[string]metav1.APIResource {
	t.Helper()
	var list metav1.APIResourceList
	e.get(path).must(t, http.StatusOK).into(t, &list)
	out := map[string]metav1.APIResource{}
	for _, r := range list.APIResources {
		out[r.Name] = r
	}
	return out
}

func TestAggregatedDiscovery(t *testing.T) {
	e := newTestEnv(t)
	accept := "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
	r := e.do(req{method: "GET", path: "/apis", accept: accept}).must(t, http.StatusOK)
	if ct := r.header.Get("Content-Type"); ct != contentTypeDiscoveryV2 {
		t.Fatalf("got Content-Type %q, want %q", ct, contentTypeDiscoveryV2)
	}
	var list apidiscoveryv2.APIGroupDiscoveryList
	r.into(t, &list)
	if list.Kind != "APIGroupDiscoveryList" || len(list.Items) != len(namedGroups()) {
		t.Fatalf("got %s with %d groups, want APIGroupDiscoveryList with %d", list.Kind, len(list.Items), len(namedGroups()))
	}
	var deploy *apidiscoveryv2.APIResourceDiscovery
	for _, res := range groupDiscovery(list, "apps").Versions[0].Resources {
		if res.Resource == "deployments" {
			deploy = &res
		}
	}
	if deploy == nil || deploy.Scope != apidiscoveryv2.ScopeNamespace || len(deploy.Subresources) != 2 || deploy.Categories[0] != "all" {
		t.Fatalf("got deployments discovery %+v", deploy)
	}
	core := e.do(req{method: "GET", path: "/api", accept: accept}).must(t, http.StatusOK)
	var coreList apidiscoveryv2.APIGroupDiscoveryList
	core.into(t, &coreList)
	wantCore := 0
	for _, res := range api.All() {
		if res.Group == "" {
			wantCore++
		}
	}
	if len(coreList.Items) != 1 || coreList.Items[0].Name != "" || len(coreList.Items[0].Versions[0].Resources) != wantCore {
		t.Fatalf("got core aggregated discovery %+v, want one unnamed group with %d resources", coreList.Items, wantCore)
	}
}

func TestOpenAPIV3(t *testing.T) {
	e := newTestEnv(t)
	var index struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	e.get("/openapi/v3").must(t, http.StatusOK).into(t, &index)
	core, ok := index.Paths["api/v1"]
	if !ok || !strings.HasPrefix(core.URL, "/openapi/v3/api/v1?hash=") || len(index.Paths) != 1+len(namedGroups()) {
		t.Fatalf("got index %+v, want api/v1 and %d groups with hash URLs", index.Paths, len(namedGroups()))
	}
	r := e.get(core.URL).must(t, http.StatusOK)
	if cc := r.header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Fatalf("got Cache-Control %q on a hash URL, want immutable", cc)
	}
	doc := r.obj(t)
	op, _ := jget(doc, "paths./api/v1/namespaces/{namespace}/configmaps/{name}.patch").(map[string]any)
	if op == nil {
		t.Fatalf("no PATCH operation for configmaps in %s", r.body)
	}
	if gvk := op["x-kubernetes-group-version-kind"].(map[string]any); gvk["kind"] != "ConfigMap" || gvk["version"] != "v1" {
		t.Fatalf("got gvk %v, want v1 ConfigMap", gvk)
	}
	if _, has := op["requestBody"]; has {
		t.Fatal("PATCH operation has a requestBody; kubectl would build patches from empty schemas")
	}
	if !hasParam(op, "fieldValidation") {
		t.Fatalf("PATCH operation lacks the fieldValidation parameter: %v", op["parameters"])
	}
	if jget(doc, "paths./api/v1/namespaces/{name}.patch") == nil {
		t.Fatal("no PATCH operation for the cluster-scoped namespaces path")
	}
	stale := e.do(req{method: "GET", path: "/openapi/v3/api/v1?hash=OLD"})
	if stale.code != http.StatusOK { // the client follows the redirect to the current hash
		t.Fatalf("got %d for a stale hash, want the redirect followed to 200", stale.code)
	}
	e.get("/openapi/v3/apis/nope/v1").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}

func hasParam(op map[string]any, name string) bool {
	params, _ := op["parameters"].([]any)
	for _, p := range params {
		if m, _ := p.(map[string]any); m["name"] == name && m["in"] == "query" {
			return true
		}
	}
	return false
}

// brokenAuthn fails the way a token lookup fails when the datastore does.
type brokenAuthn struct{}

func (brokenAuthn) Authenticate(*http.Request) (*auth.User, error) {
	return nil, errors.New("token lookup: datastore: closed")
}

func TestAuthenticatorFailureIsServerError(t *testing.T) {
	e := newTestEnv(t, func(c *APIConfig) { c.Authn = brokenAuthn{} })
	st := e.get(cmPath).status(t, http.StatusInternalServerError, metav1.StatusReasonInternalError)
	wantMessage(t, st, "datastore: closed")
}
