package audit

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// memSink keeps lines for unit tests of the handler's logic.
type memSink struct {
	mu    sync.Mutex
	lines [][]byte
}

func (m *memSink) WriteLine(line []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lines = append(m.lines, append([]byte(nil), line...))
	return nil
}

func (m *memSink) events(t *testing.T) []Event {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Event
	for _, l := range m.lines {
		var e Event
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

func serveAudited(t *testing.T, policy string, next http.HandlerFunc, r *http.Request) ([]Event, *httptest.ResponseRecorder) {
	t.Helper()
	p, err := DecodePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\n" + policy))
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	w := httptest.NewRecorder()
	NewLogger(p, sink, nil, nil).Handler(next).ServeHTTP(w, r)
	return sink.events(t), w
}

func TestHandlerLongRunningGetsResponseStarted(t *testing.T) {
	next := func(w http.ResponseWriter, r *http.Request) {
		SetUser(r.Context(), "alice", []string{"dev"})
		SetRequest(r.Context(), Request{Verb: "watch", ResourceRequest: true, APIVersion: "v1", Resource: "pods", Namespace: "a", LongRunning: true})
		w.Header().Set("Content-Type", "application/json")
		w.(http.Flusher).Flush()
		_, _ = io.WriteString(w, `{"type":"ADDED"}`)
	}
	r := httptest.NewRequest("GET", "/api/v1/namespaces/a/pods?watch=1", nil)
	r.Header.Set("Audit-ID", "client-chosen-id")
	events, w := serveAudited(t, "rules:\n- level: RequestResponse\n", next, r)
	var stages []string
	for _, e := range events {
		stages = append(stages, string(e.Stage))
		if e.AuditID != "client-chosen-id" || e.User.Username != "alice" || e.ResponseObject != nil {
			t.Errorf("event %+v: want the client's audit ID, alice, no response body for a watch", e)
		}
	}
	if got := strings.Join(stages, ","); got != "RequestReceived,ResponseStarted,ResponseComplete" {
		t.Errorf("stages: got %s, want RequestReceived,ResponseStarted,ResponseComplete", got)
	}
	if w.Header().Get("Audit-Id") != "client-chosen-id" {
		t.Errorf("Audit-Id header: got %q", w.Header().Get("Audit-Id"))
	}
}

func TestHandlerLevelsAndBodies(t *testing.T) {
	next := func(w http.ResponseWriter, r *http.Request) {
		SetUser(r.Context(), "bob", nil)
		SetRequest(r.Context(), Request{Verb: "create", ResourceRequest: true, APIVersion: "v1", Resource: r.URL.Query().Get("res"), Namespace: "a"})
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	}
	policy := "omitStages: [RequestReceived]\nrules:\n- level: None\n  resources: [{resources: [events]}]\n- level: Metadata\n  resources: [{resources: [secrets]}]\n- level: Request\n  resources: [{resources: [configmaps]}]\n- level: RequestResponse\n  omitManagedFields: true\n"
	obj := `{"metadata":{"name":"x","managedFields":[{"manager":"m"}]},"data":{"k":"v"}}`
	for _, tc := range []struct {
		res            string
		events         int
		reqBody, resp  bool
		managedVisible bool
	}{
		{"events", 0, false, false, false},
		{"secrets", 1, false, false, false},
		{"configmaps", 1, true, false, true},
		{"services", 1, true, true, false},
	} {
		r := httptest.NewRequest("POST", "/api/v1/namespaces/a/"+tc.res+"?res="+tc.res, strings.NewReader(obj))
		r.Header.Set("Content-Type", "application/json")
		events, _ := serveAudited(t, policy, next, r)
		if len(events) != tc.events {
			t.Errorf("%s: got %d events, want %d", tc.res, len(events), tc.events)
			continue
		}
		if len(events) == 0 {
			continue
		}
		e := events[0]
		if (e.RequestObject != nil) != tc.reqBody || (e.ResponseObject != nil) != tc.resp || e.ResponseStatus.Code != 201 {
			t.Errorf("%s: got request %s response %s code %d, want request %v response %v 201", tc.res, e.RequestObject, e.ResponseObject, e.ResponseStatus.Code, tc.reqBody, tc.resp)
		}
		if tc.reqBody && strings.Contains(string(e.RequestObject), "managedFields") != tc.managedVisible {
			t.Errorf("%s: managedFields kept %v, want %v", tc.res, !tc.managedVisible, tc.managedVisible)
		}
	}
}

// A request no one identified (a public path, a failed login) is logged
// as upstream's anonymous user with the lower-case method as its verb.
func TestHandlerAnonymousRequest(t *testing.T) {
	next := func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusUnauthorized) }
	events, _ := serveAudited(t, "rules:\n- level: None\n  verbs: [get]\n  nonResourceURLs: [/healthz]\n- level: Metadata\n", next, httptest.NewRequest("POST", "/healthz", nil))
	if len(events) != 2 { // RequestReceived is not left out here
		t.Fatalf("got %d events, want 2", len(events))
	}
	e := events[1]
	if e.User.Username != "system:anonymous" || e.Verb != "post" || e.ResponseStatus.Code != 401 || e.ResponseStatus.Status != "Failure" || e.ObjectRef != nil {
		t.Errorf("got %+v, want system:anonymous post 401 Failure without objectRef", e)
	}
}
