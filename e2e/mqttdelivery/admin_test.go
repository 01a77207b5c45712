package mqttdelivery

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// adminClient talks to the REST API with the admin certificate.
type adminClient struct {
	t    testing.TB
	base string
	http *http.Client
}

func newAdminClient(t testing.TB, c *cluster) *adminClient {
	t.Helper()
	certPEM, keyPEM := c.pki.AdminCertPEM()
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: c.pki.CAPool(), Certificates: []tls.Certificate{pair}}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &adminClient{t: t, base: c.srv.URL, http: &http.Client{Transport: tr}}
}

// do sends one request and returns the status code and body.
func (a *adminClient) do(method, path, body string) (int, []byte) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.base+path, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	switch method {
	case http.MethodPatch:
		req.Header.Set("Content-Type", "application/merge-patch+json")
	default:
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.http.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// must sends one request that has to succeed.
func (a *adminClient) must(method, path, body string) []byte {
	a.t.Helper()
	code, data := a.do(method, path, body)
	if code/100 != 2 {
		a.t.Fatalf("%s %s: got %d %s, want 2xx", method, path, code, data)
	}
	return data
}

// nodeView reads what node should hold, as the admin sees it now: its
// pods and the ConfigMaps and Secrets they reference, by resourceVersion.
func (a *adminClient) nodeView(node string) map[mqtt.ObjectRef]int64 {
	a.t.Helper()
	var list corev1.PodList
	q := url.Values{"fieldSelector": {"spec.nodeName=" + node}}
	if err := json.Unmarshal(a.must("GET", "/api/v1/pods?"+q.Encode(), ""), &list); err != nil {
		a.t.Fatal(err)
	}
	view := map[mqtt.ObjectRef]int64{}
	for i := range list.Items {
		pod := &list.Items[i]
		view[mqtt.ObjectRef{Resource: "pods", Namespace: pod.Namespace, Name: pod.Name}] = mustRV(a.t, pod.ResourceVersion)
		for _, r := range mqtt.PodReferences(pod) {
			code, data := a.do("GET", fmt.Sprintf("/api/v1/namespaces/%s/%s/%s", r.Namespace, r.Resource, r.Name), "")
			if code == http.StatusNotFound {
				continue
			}
			var meta struct {
				Metadata struct{ ResourceVersion string } `json:"metadata"`
			}
			if code != http.StatusOK || json.Unmarshal(data, &meta) != nil {
				a.t.Fatalf("GET %s: got %d %s", r, code, data)
			}
			view[r] = mustRV(a.t, meta.Metadata.ResourceVersion)
		}
	}
	return view
}

func mustRV(t testing.TB, s string) int64 {
	t.Helper()
	rv, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", s, err)
	}
	return rv
}
