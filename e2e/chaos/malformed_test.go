//go:build chaos

package chaos

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// malformed is one broken request.
type malformed struct {
	method, path string
	header       map[string]string
	body         []byte
}

const cmPath = "/api/v1/namespaces/default/configmaps"

// malformedRequests are bodies, headers and paths a confused or hostile
// client sends; each must get a 4xx. (A list in a namespace whose name is
// invalid answers an empty list, as upstream's does, and a create carrying
// a resourceVersion ignores it: neither is here.)
func malformedRequests() []malformed {
	return slices.Concat(malformedBodies(), malformedHeaders(), malformedPaths(), malformedPatches())
}

var jsonCT = map[string]string{"Content-Type": "application/json"}

// malformedBodies are creates with broken or wrong JSON.
func malformedBodies() []malformed {
	deep := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	var out []malformed
	for _, b := range []string{``, `{`, `[]`, `null`, `"cm"`, `123`, `{"kind":"ConfigMap"}`, "\xff\xfe\x00garbage",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Bad_Name"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"other"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}}`,
		`{"apiVersion":"v9","kind":"ConfigMap","metadata":{"name":"x"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"k":1}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":"notamap"}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"k":"v"}` + strings.Repeat(" ", 10) + `,}`,
		deep, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + strings.Repeat("n", 300) + `"}}`,
	} {
		out = append(out, malformed{http.MethodPost, cmPath, jsonCT, []byte(b)})
	}
	return append(out, malformed{http.MethodPost, cmPath, jsonCT, bytes.Repeat([]byte("x"), 4<<20)},
		malformed{http.MethodPost, cmPath + "?dryRun=Maybe", jsonCT, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"}}`)})
}

// malformedHeaders are creates with unusable content types, encodings and
// credentials.
func malformedHeaders() []malformed {
	var out []malformed
	for _, h := range []map[string]string{
		{"Content-Type": "text/plain"}, {"Content-Type": "application/vnd.kubernetes.protobuf"},
		{"Content-Type": "application/yaml"}, {"Content-Type": "application/json", "Content-Encoding": "gzip"},
		{"Content-Type": "application/json; charset=ebcdic"}, {"Authorization": "Bearer forged.token.value"},
		{"Authorization": "Basic !!!"}, {"Content-Type": "multipart/form-data; boundary="},
	} {
		out = append(out, malformed{http.MethodPost, cmPath, h, []byte("\x00\x01{{: not yaml or json ::")})
	}
	return append(out, malformed{"BREW", cmPath, nil, nil})
}

// malformedPaths are reads with broken paths and query parameters.
func malformedPaths() []malformed {
	var out []malformed
	for _, p := range []string{cmPath + "?labelSelector=a%20in%20(", cmPath + "?fieldSelector=nope%3D1", cmPath + "?limit=-5",
		cmPath + "?watch=1&resourceVersion=abc", cmPath + "?timeoutSeconds=soon", cmPath + "?continue=garbage",
		"/api/v1/namespaces/default/nosuchkind", "/apis/no.such.group/v1/things",
		"/api/v1/namespaces/default/configmaps/" + strings.Repeat("x", 5000), "/api/v1/namespaces/default/configmaps/%00",
		"/api/v1/namespaces/default/pods/nope/exec?command=sh", "/api/v1/namespaces/default/pods/nope/log?tailLines=x"} {
		out = append(out, malformed{http.MethodGet, p, nil, nil})
	}
	return out
}

// malformedPatches are patches, updates and deletes that cannot apply.
func malformedPatches() []malformed {
	var out []malformed
	for _, p := range []struct{ ct, body string }{{"application/json-patch+json", `[{"op":"explode","path":"/x"}]`},
		{"application/json-patch+json", `{"not":"a list"}`}, {"application/merge-patch+json", `[1,2]`},
		{"application/strategic-merge-patch+json", `{"data":{"$patch":"bogus"}}`}, {"application/apply-patch+yaml", "\t: - ["},
		{"application/x-weird", `{}`}} {
		out = append(out, malformed{http.MethodPatch, cmPath + "/target", map[string]string{"Content-Type": p.ct}, []byte(p.body)})
	}
	out = append(out, malformed{http.MethodPatch, cmPath + "/target?fieldManager=" + strings.Repeat("m", 300),
		map[string]string{"Content-Type": "application/apply-patch+yaml"}, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: target\n")},
		malformed{http.MethodPut, cmPath + "/target", jsonCT, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"}}`)},
		malformed{http.MethodDelete, cmPath + "/target", jsonCT, []byte(`{"propagationPolicy":"Sideways"}`)})
	return out
}

// TestMalformedInput sends every malformed request and wants a 4xx for
// each, never a 5xx, and a server still ready with no panic in its log.
func TestMalformedInput(t *testing.T) {
	t.Parallel()
	s := cluster.StartServer(t)
	c := cluster.NewClient(t, s.Kubeconfig)
	if _, ok := create(c, "target", 0); !ok {
		t.Fatal("create the target ConfigMap")
	}
	reqs := malformedRequests()
	for _, m := range reqs {
		h := http.Header{}
		for k, v := range m.header {
			h.Set(k, v)
		}
		r, err := c.Try(m.method, m.path, h, m.body)
		if err != nil {
			t.Fatalf("%s %.120s %v: %v (the server: %s)", m.method, m.path, m.header, err, tail(s.Logs()))
		}
		if r.Code < 400 || r.Code > 499 {
			t.Errorf("%s %.120s %v body %.80q: got %d %.300s, want a 4xx", m.method, m.path, m.header, m.body, r.Code, r.Body)
		}
	}
	if r := c.Do(http.MethodGet, "/readyz", "", nil); r.Code != http.StatusOK {
		t.Fatalf("/readyz after the malformed requests: %d %s", r.Code, r.Body)
	}
	if strings.Contains(s.Logs(), "panic") {
		t.Fatalf("the server logged a panic:\n%s", s.Logs())
	}
	figure("malformed-input: requests=%d 4xx=%d 5xx=0 crashes=0", len(reqs), len(reqs))
}

func tail(s string) string {
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return fmt.Sprint(s)
}
