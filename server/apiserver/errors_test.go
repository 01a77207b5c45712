package apiserver

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func wantMessage(t *testing.T, st metav1.Status, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(st.Message, p) {
			t.Fatalf("got message %q, want it to contain %q", st.Message, p)
		}
	}
}

func TestBadRequests(t *testing.T) {
	e := newTestEnv(t)
	st := e.post(cmPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":}}`).
		status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	wantMessage(t, st, "offset")
	st = e.post(cmPath, "").status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	wantMessage(t, st, "empty")
	st = e.post(cmPath, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x"}}`).
		status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	wantMessage(t, st, "apps/v1")
	st = e.post(cmPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"other"}}`).
		status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	wantMessage(t, st, "does not match the namespace")
	for _, q := range []string{"resourceVersion=abc", "labelSelector=a%20in%20(", "fieldSelector=nope%3Dx", "limit=-1",
		"resourceVersionMatch=Exact", "resourceVersion=0&resourceVersionMatch=Exact", "watch=maybe", "timeoutSeconds=x"} {
		e.get(cmPath+"?"+q).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	}
	e.get(cmPath+"/x?resourceVersion=-1").status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	e.post(cmPath+"?fieldValidation=Loud", manifest(t, "configmaps", "x")).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
}

func TestFieldValidationOnCreate(t *testing.T) {
	e := newTestEnv(t)
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"spec":{"foo":1}}`
	st := e.post(cmPath+"?fieldValidation=Strict", body).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	wantMessage(t, st, `strict decoding error: unknown field "spec"`)
	r := e.post(cmPath, body).must(t, http.StatusCreated)
	if w := r.header.Get("Warning"); w != `299 - "unknown field \"spec\""` {
		t.Fatalf("got Warning %q with the default (Warn), want the unknown field", w)
	}
}

func TestNotFoundAndMethodErrors(t *testing.T) {
	e := newTestEnv(t)
	e.get("/api/v1/widgets").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	e.get("/api/v1/namespaces/default/nodes").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	e.get("/api/v1/configmaps/x").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	e.get("/api/v1/namespaces/default/configmaps/x/status").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	e.get("/nothing/here").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	st := e.get(cmPath+"/nope").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	if st.Message != `configmaps "nope" not found` || st.Details.Name != "nope" || st.Details.Kind != "configmaps" {
		t.Fatalf("got %q details %+v, want configmaps \"nope\" not found", st.Message, st.Details)
	}
	st = e.post("/api/v1/namespaces/nope/configmaps", manifest(t, "configmaps", "x")).status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	if st.Message != `namespaces "nope" not found` {
		t.Fatalf("got %q, want namespaces \"nope\" not found", st.Message)
	}
	e.put(cmPath, manifest(t, "configmaps", "x")).status(t, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed)
	e.post("/api/v1/configmaps", manifest(t, "configmaps", "x")).status(t, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed)
	e.post("/api", "{}").status(t, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed)
}

func TestBodyLimitsAndMediaTypes(t *testing.T) {
	e := newTestEnv(t, func(c *APIConfig) { c.MaxBodyBytes = 1024 })
	big := cmJSON("big", map[string]string{"k": strings.Repeat("x", 2000)}, nil)
	st := e.post(cmPath, big).status(t, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge)
	wantMessage(t, st, "1024")
	st = e.do(req{method: "POST", path: cmPath, body: "a: b", contentType: "text/plain"}).
		status(t, http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType)
	wantMessage(t, st, "text/plain", "application/json")
	yamlBody := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fromyaml\n"
	e.do(req{method: "POST", path: cmPath, body: yamlBody, contentType: "application/yaml"}).must(t, http.StatusCreated)
}

func TestInvalidObjectIs422(t *testing.T) {
	e := newTestEnv(t)
	st := e.post(cmPath, manifest(t, "configmaps", "Bad_Name")).status(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	if !strings.HasPrefix(st.Message, `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"`) {
		t.Fatalf("got message %q, want the Kubernetes Invalid shape", st.Message)
	}
	if st.Details == nil || st.Details.Kind != "ConfigMap" || len(st.Details.Causes) == 0 || st.Details.Causes[0].Field != "metadata.name" {
		t.Fatalf("got details %+v, want kind ConfigMap and a cause on metadata.name", st.Details)
	}
	e.post(cmPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}`).status(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
}

// panickyLogs is a LogStreamer that panics, to test recovery.
type panickyLogs struct{}

func (panickyLogs) StreamLogs(context.Context, string, *corev1.Pod, *corev1.PodLogOptions, io.Writer) error {
	panic("boom")
}

func TestPanicBecomes500AndServerGoesOn(t *testing.T) {
	e := newTestEnv(t, func(c *APIConfig) { c.Logs = panickyLogs{} })
	createBoundPod(t, e, "p1", "node-1")
	st := e.get(podPath+"/p1/log").status(t, http.StatusInternalServerError, metav1.StatusReasonInternalError)
	wantMessage(t, st, "boom")
	e.get(podPath+"/p1").must(t, http.StatusOK)
}

func TestFutureResourceVersionIsTimeout(t *testing.T) {
	e := newTestEnv(t)
	for _, q := range []string{"resourceVersion=999999&resourceVersionMatch=Exact", "resourceVersion=999999&resourceVersionMatch=NotOlderThan", "resourceVersion=999999"} {
		st := e.get(cmPath+"?"+q).status(t, http.StatusGatewayTimeout, metav1.StatusReasonTimeout)
		wantMessage(t, st, "Too large resource version: 999999")
	}
}
