package apiserver

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// Each error kind's whole JSON body, pinned against the shape upstream's
// apiserver gives (apimachinery's constructors, and its router's generic
// answers for paths and methods it does not serve): details are present
// exactly where upstream sets them, empty where its constructor leaves
// group, kind and name empty, and absent where it has none.
var errorBodies = []struct {
	name string
	rq   req
	want string // a message of "*" matches any message
}{
	{"unknown resource", req{method: "GET", path: "/api/v1/nonexistents"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`},
	{"unknown group resource", req{method: "GET", path: "/apis/apps/v1/namespaces/default/widgets"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`},
	{"unknown subresource", req{method: "PATCH", path: podPath + "/p/resize", body: "{}", contentType: "application/strategic-merge-patch+json"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`},
	{"missing object", req{method: "GET", path: cmPath + "/nope"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"nope\" not found","reason":"NotFound","details":{"name":"nope","kind":"configmaps"},"code":404}`},
	{"missing object in a group", req{method: "GET", path: "/apis/apps/v1/namespaces/default/deployments/nope"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"nope\" not found","reason":"NotFound","details":{"name":"nope","group":"apps","kind":"deployments"},"code":404}`},
	{"already exists", req{method: "POST", path: cmPath, body: cmJSON("x", nil, nil)},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"x\" already exists","reason":"AlreadyExists","details":{"name":"x","kind":"configmaps"},"code":409}`},
	{"conflict", req{method: "PUT", path: cmPath + "/x", body: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x", "resourceVersion": "1"}}},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \"x\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"x","kind":"configmaps"},"code":409}`},
	{"invalid", req{method: "POST", path: cmPath, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}`},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ConfigMap \"\" is invalid: metadata.name: Required value: name or generateName is required","reason":"Invalid","details":{"kind":"ConfigMap","causes":[{"reason":"FieldValueRequired","message":"Required value: name or generateName is required","field":"metadata.name"}]},"code":422}`},
	{"forbidden", req{method: "DELETE", path: cmPath + "/x", token: "viewer-token"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"x\" is forbidden: forbidden: user \"alice\" may not delete configmaps","reason":"Forbidden","details":{"name":"x","kind":"configmaps"},"code":403}`},
	{"forbidden path", req{method: "POST", path: "/api", body: "{}", token: "viewer-token"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"alice\" cannot post path \"/api\": forbidden: user \"alice\" may not post ","reason":"Forbidden","details":{},"code":403}`},
	{"method on a resource", req{method: "PUT", path: cmPath, body: "{}"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}`},
	{"method on a path", req{method: "POST", path: "/api", body: "{}"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}`},
	{"bad request", req{method: "GET", path: cmPath + "?watch=maybe"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"query parameter watch=\"maybe\": must be true or false","reason":"BadRequest","code":400}`},
	{"patch that does not apply", req{method: "PATCH", path: cmPath + "/x", body: `[{"op":"test","path":"/data/a","value":"b"}]`, contentType: "application/json-patch+json"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the patch cannot be applied: test operation does not apply: is missing path: /data/a: missing value","reason":"Invalid","details":{},"code":422}`},
	{"future resourceVersion", req{method: "GET", path: cmPath + "?resourceVersion=999999"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"*","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}`},
	{"unauthorized", req{method: "GET", path: cmPath, token: "none"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized: unauthenticated: no bearer token","reason":"Unauthorized","code":401}`},
}

func TestErrorBodies(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, cmJSON("x", nil, nil)).must(t, http.StatusCreated)
	for _, c := range errorBodies {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(c.rq)
			var got, want map[string]any
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatalf("body %s: %v", r.body, err)
			}
			if err := json.Unmarshal([]byte(c.want), &want); err != nil {
				t.Fatal(err)
			}
			if want["message"] == "*" {
				want["message"] = got["message"]
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: got  %s\nwant %s", c.rq.method, c.rq.path, r.body, c.want)
			}
		})
	}
}
