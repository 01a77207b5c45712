package apiserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/server/rbac"
)

// rbacEnv is a test API whose authorizer is RBAC over a fixed index:
// alice (viewer-token) may ask about herself and read pods in dev.
func rbacEnv(t *testing.T) *testEnv {
	x := rbac.NewIndex()
	x.SetRole("", "basic", []rbacv1.PolicyRule{{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io", "authentication.k8s.io"},
		Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews", "selfsubjectreviews"}}})
	x.SetRole("", "pod-reader", []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}})
	x.SetBinding("", "basic", rbacv1.RoleRef{Kind: "ClusterRole", Name: "basic"}, []rbacv1.Subject{{Kind: "Group", Name: "system:authenticated"}})
	x.SetBinding("dev", "alice", rbacv1.RoleRef{Kind: "ClusterRole", Name: "pod-reader"}, []rbacv1.Subject{{Kind: "User", Name: "alice"}})
	return newTestEnv(t, func(c *APIConfig) { c.Authz = rbac.New(x, nil) })
}

// post sends body as token with extra headers and decodes a 201's body
// into out; it returns the code and body.
func post(t *testing.T, e *testEnv, token, path, body string, headers map[string][]string, out any) (int, string) {
	t.Helper()
	hr, err := http.NewRequest(http.MethodPost, e.srv.URL+path, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Authorization", "Bearer "+token)
	for k, vs := range headers {
		hr.Header[k] = vs
	}
	resp, err := e.client.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusCreated && out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("decode %s: %v", data, err)
		}
	}
	return resp.StatusCode, string(data)
}

const whoamiPath = "/apis/authentication.k8s.io/v1/selfsubjectreviews"

func TestReviewsAndImpersonation(t *testing.T) {
	e := rbacEnv(t)
	var rules authorizationv1.SelfSubjectRulesReview
	code, body := post(t, e, "viewer-token", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", `{"spec":{"namespace":"dev"}}`, nil, &rules)
	if code != 201 || !strings.Contains(body, `"resources":["pods"]`) || !strings.Contains(body, "selfsubjectreviews") {
		t.Errorf("rules review in dev: got %d %s", code, body)
	}
	var who authenticationv1.SelfSubjectReview
	if code, body := post(t, e, "viewer-token", whoamiPath, `{}`, nil, &who); code != 201 || who.Status.UserInfo.Username != "alice" ||
		!strings.Contains(body, "system:authenticated") {
		t.Errorf("whoami: got %d %s", code, body)
	}
	sar := `{"spec":{"user":"alice","resourceAttributes":{"verb":"list","resource":"pods","namespace":"NS"}}}`
	var review authorizationv1.SubjectAccessReview
	if code, body := post(t, e, "admin-token", "/apis/authorization.k8s.io/v1/subjectaccessreviews", strings.Replace(sar, "NS", "dev", 1), nil, &review); code != 201 || !review.Status.Allowed {
		t.Errorf("SAR alice list pods in dev: got %d %s", code, body)
	}
	review = authorizationv1.SubjectAccessReview{}
	if code, _ := post(t, e, "admin-token", "/apis/authorization.k8s.io/v1/subjectaccessreviews", strings.Replace(sar, "NS", "prod", 1), nil, &review); code != 201 ||
		review.Status.Allowed || !strings.Contains(review.Status.Reason, `User "alice" cannot list resource "pods"`) {
		t.Errorf("SAR alice list pods in prod: got %d %+v", code, review.Status)
	}
	if code, body := post(t, e, "viewer-token", "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar, nil, nil); code != 403 {
		t.Errorf("SAR by alice: got %d %s, want 403", code, body)
	}
	if code, body := post(t, e, "admin-token", "/apis/authorization.k8s.io/v1/namespaces/dev/localsubjectaccessreviews",
		strings.Replace(sar, "NS", "prod", 1), nil, nil); code != 400 || !strings.Contains(body, "must match") {
		t.Errorf("local review about another namespace: got %d %s, want 400", code, body)
	}

	who = authenticationv1.SelfSubjectReview{}
	as := map[string][]string{"Impersonate-User": {"alice"}, "Impersonate-Group": {"g1"}, "Impersonate-Extra-Scopes": {"a", "b"}}
	if code, body := post(t, e, "admin-token", whoamiPath, `{}`, as, &who); code != 201 || who.Status.UserInfo.Username != "alice" ||
		!strings.Contains(body, `"groups":["g1","system:authenticated"]`) || !strings.Contains(body, `"scopes":["a","b"]`) {
		t.Errorf("admin as alice: got %d %s", code, body)
	}
	code, body = post(t, e, "viewer-token", whoamiPath, `{}`, map[string][]string{"Impersonate-User": {"system:serviceaccount:dev:bot"}}, nil)
	if code != 403 || !strings.Contains(body, `serviceaccounts \"bot\" is forbidden: User \"alice\" cannot impersonate resource \"serviceaccounts\" in API group \"\" in the namespace \"dev\"`) {
		t.Errorf("alice as a service account: got %d %s", code, body)
	}
	if code, body := post(t, e, "admin-token", whoamiPath, `{}`, map[string][]string{"Impersonate-Group": {"g1"}}, nil); code != 400 {
		t.Errorf("a group without a user: got %d %s, want 400", code, body)
	}
}

// TestRBACForbiddenPath: a refused path says who may not do what once.
func TestRBACForbiddenPath(t *testing.T) {
	e := rbacEnv(t)
	r := e.do(req{method: "GET", path: "/apis", token: "viewer-token"})
	want := `"message":"forbidden: User \"alice\" cannot get path \"/apis\"","reason":"Forbidden"`
	if r.code != 403 || !strings.Contains(string(r.body), want) {
		t.Errorf("GET /apis as alice: got %d %s, want 403 with %s", r.code, r.body, want)
	}
}

func FuzzParseReview(f *testing.F) {
	f.Add([]byte(`{"spec":{"user":"alice","groups":["g"],"resourceAttributes":{"verb":"get","resource":"pods"}}}`), "/apis/authorization.k8s.io/v1/namespaces/x/localsubjectaccessreviews")
	f.Add([]byte(`{"spec":{"namespace":"dev"}}`), "/apis/authentication.k8s.io/v1/selfsubjectreviews")
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		var sar authorizationv1.SubjectAccessReview
		if err := parseReview(body, &sar); err == nil && sar.Spec.ResourceAttributes != nil {
			_ = reviewAttributes(&authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: sar.Spec.ResourceAttributes})
		}
		g, v, ns, res, ok := reviewPath(path)
		if ok && "/apis/"+strings.Join(nonEmpty(g, v, pick(ns == "", "", "namespaces"), ns, res), "/") != path {
			t.Fatalf("reviewPath(%q) = %q %q %q %q: does not rebuild the path", path, g, v, ns, res)
		}
	})
}

func nonEmpty(parts ...string) []string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
