package apiserver

import (
	"errors"
	"net/http"
	"net/url"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// requireStatus fails unless err is nil or an API status error with a 4xx
// code: bad input must never look like a server fault.
func requireStatus(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		t.Fatalf("got a plain error %v, want an API status error", err)
	}
	if c := se.Status().Code; c < 400 || c >= 500 {
		t.Fatalf("got code %d for bad input (%v), want 4xx", c, err)
	}
}

func FuzzDecodeBody(f *testing.F) {
	f.Add("application/json", []byte(manifests["configmaps"]), "Strict")
	f.Add("application/json", []byte(manifests["deployments"]), "Warn")
	f.Add("application/yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"), "Ignore")
	f.Add("application/vnd.kubernetes.protobuf", []byte("k8s\x00\n\x0f\n\x02v1\x12\tNamespace\x12\x05\n\x03\n\x01x"), "Strict")
	f.Add("text/plain; charset=utf-8", []byte("hello"), "Warn")
	f.Add("", []byte(`{"kind":"ConfigMap","apiVersion":"v1","data":{"a":1}}`), "Strict")
	f.Fuzz(func(t *testing.T, contentType string, body []byte, validation string) {
		for _, res := range []*api.Resource{api.MustLookup("", "v1", "configmaps"), api.MustLookup("apps", "v1", "deployments"), api.MustLookup("", "v1", "namespaces")} {
			obj, _, err := decodeBody(res, contentType, body, validation)
			requireStatus(t, err)
			if err == nil && obj == nil {
				t.Fatal("decodeBody returned neither object nor error")
			}
		}
		_, err := decodeDeleteOptions(contentType, body)
		requireStatus(t, err)
	})
}

func FuzzParseAccept(f *testing.F) {
	f.Add(tableAccept)
	f.Add("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json")
	f.Add("application/vnd.kubernetes.protobuf,application/json")
	f.Add(`*/*;q=0.8, text/html; charset="utf-8"`)
	f.Add(",,;;==,a/b;c")
	f.Fuzz(func(t *testing.T, accept string) {
		ranges := parseAccept(accept)
		if len(ranges) > maxAcceptEntries {
			t.Fatalf("got %d ranges, want at most %d", len(ranges), maxAcceptEntries)
		}
		out, err := negotiate(accept, outTable, outDiscoveryV2)
		requireStatus(t, err)
		if err == nil && out != outJSON && out != outTable && out != outDiscoveryV2 {
			t.Fatalf("got output %d", out)
		}
	})
}

func FuzzParseResourceVersion(f *testing.F) {
	for _, s := range []string{"", "0", "1", "1042", "-1", "abc", "+5", "9223372036854775807", "9223372036854775808", " 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseResourceVersion(s)
		requireStatus(t, err)
		if err == nil && n < 0 {
			t.Fatalf("parseResourceVersion(%q) = %d, want non-negative", s, n)
		}
		q := url.Values{"resourceVersion": {s}, "resourceVersionMatch": {"NotOlderThan"}, "limit": {s}, "timeoutSeconds": {s}}
		_, err = parseListQuery(api.MustLookup("", "v1", "configmaps"), q)
		requireStatus(t, err)
	})
}

func FuzzParseRequestPath(f *testing.F) {
	for _, p := range []string{"/api/v1/namespaces/default/configmaps/x", "/api/v1/namespaces/foo/status", "/apis/apps/v1/deployments",
		"/apis/apps/v1/namespaces/d/deployments/w/scale", "//api//v1", "/api/v1/namespaces//pods", "/openapi/v3/api/v1"} {
		f.Add("GET", p, "watch=true")
	}
	f.Add("POST", "/api/v1/namespaces/d/pods/p/binding", "")
	f.Add("PATCH", "/api/v1/nodes/n/status", "watch=1")
	f.Fuzz(func(t *testing.T, method, path, query string) {
		r := &http.Request{Method: method, URL: &url.URL{Path: path, RawQuery: query}}
		ri, err := parseRequest(registry.BuiltinKinds(), r)
		requireStatus(t, err)
		if err != nil || ri.res == nil {
			return
		}
		if ri.verb == "" || (ri.sub != "" && !ri.res.HasSubresource(ri.sub)) || (ri.namespace != "" && !ri.res.Namespaced) {
			t.Fatalf("inconsistent request info %+v for %s %s", ri, method, path)
		}
		_ = ri.attributes()
	})
}

func FuzzParseLogOptions(f *testing.F) {
	f.Add("container=main&follow=true&tailLines=2&sinceSeconds=3600&timestamps=true")
	f.Add("sinceTime=2026-01-01T00:00:00Z&limitBytes=0")
	f.Add("previous=yes&tailLines=-3")
	f.Fuzz(func(t *testing.T, query string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		opts, err := parseLogOptions(q)
		requireStatus(t, err)
		if err == nil && opts.SinceSeconds != nil && opts.SinceTime != nil {
			t.Fatal("both sinceSeconds and sinceTime accepted")
		}
	})
}
