package logs_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/runtime/logdriver"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/apiserver"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/logs"
)

// adminAuthn and allowAll are the test seams for authentication and
// authorization: every request is the admin.
type adminAuthn struct{}

func (adminAuthn) Authenticate(*http.Request) (*auth.User, error) {
	return &auth.User{Name: "admin", Groups: []string{"system:masters"}, Role: auth.RoleAdmin}, nil
}

type allowAll struct{}

func (allowAll) Authorize(context.Context, *auth.User, auth.Attributes) error { return nil }

// apiServer is the real REST handler on a real SQLite store, with the
// Streamer as its LogStreamer.
func apiServer(t testing.TB, s *logs.Streamer) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"), datastore.SQLiteConfig{Logger: quiet(), CompactInterval: -1})
	if err != nil {
		t.Fatalf("open datastore: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	a, err := apiserver.NewAPI(ctx, apiserver.APIConfig{Store: store, Authn: adminAuthn{}, Authz: allowAll{}, Logs: s, Log: quiet()})
	if err != nil {
		t.Fatalf("NewAPI: %v", err)
	}
	srv := httptest.NewUnstartedServer(a)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// createPod creates pod p bound to node and returns its UID.
func createPod(t testing.TB, srv *httptest.Server, node string) string {
	t.Helper()
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":%q,"containers":[{"name":"c","image":"busybox"}]}}`, node)
	resp, err := srv.Client().Post(srv.URL+"/api/v1/namespaces/default/pods", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("create pod: %v", err)
	}
	defer resp.Body.Close()
	var pod corev1.Pod
	if err := json.NewDecoder(resp.Body).Decode(&pod); err != nil || resp.StatusCode != http.StatusCreated || pod.UID == "" {
		t.Fatalf("create pod: got %d, uid %q, err %v; want 201 with a uid", resp.StatusCode, pod.UID, err)
	}
	return string(pod.UID)
}

func get(t testing.TB, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestPodLogThroughTheAPI(t *testing.T) {
	c := newCluster(t)
	n := c.addNode(t, "pi-1")
	s := logs.New(c.bus, quiet())
	srv := apiServer(t, s)
	uid := createPod(t, srv, "pi-1")
	const path = "/api/v1/namespaces/default/pods/p/log"
	if code, body := get(t, srv, path+"?container=c"); code != http.StatusNotFound || !strings.Contains(body, `container \"c\" in pod \"p\" not found`) {
		t.Fatalf("before any log: got %d %s, want 404 naming the container", code, body)
	}
	w, err := logdriver.OpenWriter(n.logPath(uid, "c", 0), 1<<20, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, l := range []string{"one", "two", "three"} {
		w.WriteLine("stdout", false, []byte(l))
	}
	if code, body := get(t, srv, path+"?container=c"); code != http.StatusOK || body != "one\ntwo\nthree\n" {
		t.Fatalf("GET log: got %d %q, want 200 %q", code, body, "one\ntwo\nthree\n")
	}
	if code, body := get(t, srv, path+"?container=c&tailLines=1"); code != http.StatusOK || body != "three\n" {
		t.Fatalf("GET log tailLines=1: got %d %q, want 200 %q", code, body, "three\n")
	}
	testFollowOverHTTP(t, srv, w, n)
}

// testFollowOverHTTP reads a followed log line by line, then goes away;
// the agent must end its stream.
func testFollowOverHTTP(t *testing.T, srv *httptest.Server, w *logdriver.Writer, n *node) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/v1/namespaces/default/pods/p/log?container=c&follow=true&tailLines=1", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("GET follow: %v", err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/plain" {
		t.Fatalf("GET follow: got %d %s, want 200 text/plain", resp.StatusCode, ct)
	}
	lines := bufio.NewReader(resp.Body)
	for _, want := range []string{"three\n", "four\n"} {
		if want == "four\n" {
			w.WriteLine("stdout", false, []byte("four"))
		}
		got, err := lines.ReadString('\n')
		if err != nil || got != want {
			t.Fatalf("follow: got %q (%v), want %q", got, err, want)
		}
	}
	cancel()
	waitUntil(t, "the agent to end the followed stream", func() bool { return n.h.Active() == 0 })
}
