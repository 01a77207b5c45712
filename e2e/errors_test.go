package e2e

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestErrorsAreStatusBodies sends what a careless client or a broken script
// sends, and checks each answer is the right 4xx with a useful message, and
// that the server keeps serving afterwards.
func TestErrorsAreStatusBodies(t *testing.T) {
	s := cluster.StartServer(t)
	c := cluster.NewClient(t, s.Kubeconfig)
	const cms = "/api/v1/namespaces/default/configmaps"
	cases := []struct {
		name, method, path, ctype string
		body                      []byte
		code                      int
		reason, msg               string
	}{
		{"malformed json", "POST", cms, "application/json", []byte(`{"kind":"ConfigMap",`), 400, "BadRequest", ""},
		{"wrong apiVersion", "POST", cms, "application/json", []byte(`{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"x"}}`), 400, "BadRequest", "apps/v1"},
		{"invalid name", "POST", cms, "application/json", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Not_Valid"}}`), 422, "Invalid", "metadata.name"},
		{"missing name", "POST", cms, "application/json", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}`), 422, "Invalid", "name"},
		{"unknown resource", "GET", "/api/v1/namespaces/default/widgets", "", nil, 404, "NotFound", ""},
		{"unknown group", "GET", "/apis/example.com/v1/widgets", "", nil, 404, "NotFound", ""},
		{"bad resourceVersion", "GET", cms + "?watch=true&resourceVersion=abc", "", nil, 400, "BadRequest", "resourceVersion"},
		{"bad label selector", "GET", cms + "?labelSelector=a%20in%20(", "", nil, 400, "BadRequest", "labelSelector"},
		{"bad field selector", "GET", cms + "?fieldSelector=spec.nope%3Dx", "", nil, 400, "BadRequest", "spec.nope"},
		{"unsupported media type", "POST", cms, "text/csv", []byte("a,b"), 415, "UnsupportedMediaType", ""},
		{"oversized body", "POST", cms, "application/json", oversized(), 413, "RequestEntityTooLarge", ""},
		{"missing namespace", "POST", "/api/v1/namespaces/nowhere/configmaps", "application/json", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`), 404, "NotFound", `namespaces "nowhere" not found`},
		{"invalid deployment", "POST", "/apis/apps/v1/namespaces/default/deployments", "application/json",
			[]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"c"}},"spec":{"containers":[{"name":"c","image":""},{"name":"c","image":"x"}]}}}}`),
			422, "Invalid", "spec.template.spec.containers[0].image"},
		{"bad quantity", "POST", "/apis/apps/v1/namespaces/default/deployments", "application/json",
			[]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"memory":"lots"}}}]}}}}`),
			400, "BadRequest", "spec.template.spec.containers[0].resources.limits.memory"},
		{"strict unknown field", "POST", cms + "?fieldValidation=Strict", "application/json", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"dta":{}}`), 400, "BadRequest", "dta"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Do(tc.method, tc.path, tc.ctype, tc.body)
			if r.Code != tc.code {
				t.Fatalf("got %d, want %d: %s", r.Code, tc.code, r.Body)
			}
			kind, reason, msg := r.Status(t)
			if kind != "Status" || reason != tc.reason {
				t.Errorf("got kind %q reason %q, want Status %q: %s", kind, reason, tc.reason, r.Body)
			}
			if tc.msg != "" && !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q does not name %q", msg, tc.msg)
			}
		})
	}
	if r := c.Do("GET", "/readyz", "", nil); r.Code != 200 {
		t.Fatalf("server unhealthy after bad requests: %d", r.Code)
	}

	// Through kubectl: a bad manifest and an unknown kind name the problem.
	_, errOut, err := s.Apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [broken\n")
	if err == nil || !strings.Contains(strings.ToLower(errOut), "yaml") {
		t.Errorf("malformed YAML: err=%v stderr=%q", err, errOut)
	}
	_, errOut, err = s.Apply("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n")
	if err == nil || !strings.Contains(errOut, "Widget") {
		t.Errorf("unknown kind: err=%v stderr=%q", err, errOut)
	}
}

func oversized() []byte {
	var b bytes.Buffer
	b.WriteString(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"k":"`)
	b.Write(bytes.Repeat([]byte("x"), 4<<20))
	b.WriteString(`"}}`)
	return b.Bytes()
}

// TestConflictAndCompaction: a stale resourceVersion gets 409, a watch from a
// compacted revision gets 410.
func TestConflictAndCompaction(t *testing.T) {
	s := cluster.StartServer(t)
	c := cluster.NewClient(t, s.Kubeconfig)
	const cms = "/api/v1/namespaces/default/configmaps"
	r := c.Do("POST", cms, "application/json", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"v":"1"}}`))
	if r.Code != 201 {
		t.Fatalf("create: %d %s", r.Code, r.Body)
	}
	rv := cluster.Field(r.Object(t), "metadata", "resourceVersion").(string)
	upd := func(v, rv string) *cluster.Response {
		return c.Do("PUT", cms+"/c", "application/json",
			[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","resourceVersion":"`+rv+`"},"data":{"v":"`+v+`"}}`))
	}
	if r := upd("2", rv); r.Code != 200 {
		t.Fatalf("update with current rv: %d %s", r.Code, r.Body)
	}
	r = upd("3", rv)
	if r.Code != 409 {
		t.Fatalf("update with stale rv: got %d, want 409: %s", r.Code, r.Body)
	}
	if _, reason, msg := r.Status(t); reason != "Conflict" || !strings.Contains(msg, "modified") {
		t.Errorf("stale update: reason %q message %q", reason, msg)
	}

	for i := 0; i < 20; i++ {
		if r := c.Do("PATCH", cms+"/c", "application/merge-patch+json", []byte(`{"data":{"n":"`+strings.Repeat("x", i)+`"}}`)); r.Code != 200 {
			t.Fatalf("patch: %d %s", r.Code, r.Body)
		}
	}
	s.Stop()
	s.Start("--datastore-compact-interval", "100ms", "--datastore-compact-retain", "1")
	c = cluster.NewClient(t, s.Kubeconfig)
	cluster.WaitFor(t, 20*time.Second, func() bool {
		r = c.Do("GET", cms+"?watch=true&resourceVersion="+rv+"&timeoutSeconds=1", "", nil)
		return r.Code != 200
	}, "the background compactor to pass revision "+rv)
	if r.Code != 410 {
		t.Fatalf("watch from compacted rv %s: got %d, want 410: %s", rv, r.Code, r.Body)
	}
	if _, reason, _ := r.Status(t); reason != "Expired" {
		t.Errorf("410 reason %q, want Expired", reason)
	}
}
