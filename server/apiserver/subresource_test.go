package apiserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const podPath = "/api/v1/namespaces/default/pods"

func createBoundPod(t *testing.T, e *testEnv, name, node string) {
	t.Helper()
	e.post(podPath, manifest(t, "pods", name)).must(t, http.StatusCreated)
	binding := fmt.Sprintf(`{"apiVersion":"v1","kind":"Binding","metadata":{"name":%q},"target":{"kind":"Node","name":%q}}`, name, node)
	e.post(podPath+"/"+name+"/binding", binding).must(t, http.StatusCreated)
}

func TestBinding(t *testing.T) {
	e := newTestEnv(t)
	e.post(podPath, manifest(t, "pods", "p1")).must(t, http.StatusCreated)
	binding := `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p1"},"target":{"kind":"Node","name":"pi-1"}}`
	st := e.post(podPath+"/p1/binding", binding).status(t, http.StatusCreated, "")
	if st.Status != metav1.StatusSuccess {
		t.Fatalf("got status %q, want Success", st.Status)
	}
	pod := e.get(podPath+"/p1").must(t, http.StatusOK).obj(t)
	conds, _ := jget(pod, "status.conditions").([]any)
	if jget(pod, "spec.nodeName") != "pi-1" || len(conds) != 1 || conds[0].(map[string]any)["type"] != "PodScheduled" {
		t.Fatalf("got nodeName %v conditions %v, want pi-1 and PodScheduled", jget(pod, "spec.nodeName"), conds)
	}
	st = e.post(podPath+"/p1/binding", binding).status(t, http.StatusConflict, metav1.StatusReasonConflict)
	wantMessage(t, st, `already assigned to node "pi-1"`)
	e.post(podPath+"/nope/binding", strings.Replace(binding, "p1", "nope", 1)).status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	e.post(podPath+"/p1/binding", `{"apiVersion":"v1","kind":"Binding","target":{}}`).status(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	e.get(podPath+"/p1/binding").status(t, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed)
}

func TestStatusSubresource(t *testing.T) {
	e := newTestEnv(t)
	obj := e.post(deployPath, manifest(t, "deployments", "web")).must(t, http.StatusCreated).obj(t)
	obj["status"] = map[string]any{"replicas": 2, "observedGeneration": 1}
	obj["spec"].(map[string]any)["replicas"] = 5
	got := e.put(deployPath+"/web/status", obj).must(t, http.StatusOK).obj(t)
	if jget(got, "status.replicas") != float64(2) || jget(got, "spec.replicas") != float64(2) {
		t.Fatalf("got status.replicas %v spec.replicas %v, want status written and spec kept at 2", jget(got, "status.replicas"), jget(got, "spec.replicas"))
	}
	got["status"] = map[string]any{"replicas": 9}
	got["spec"].(map[string]any)["replicas"] = 3
	again := e.put(deployPath+"/web", got).must(t, http.StatusOK).obj(t)
	if jget(again, "status.replicas") != float64(2) || jget(again, "spec.replicas") != float64(3) || jget(again, "metadata.generation") != float64(2) {
		t.Fatalf("got status %v spec.replicas %v generation %v, want status kept, spec 3, generation 2",
			again["status"], jget(again, "spec.replicas"), jget(again, "metadata.generation"))
	}
	patched := e.patch(deployPath+"/web/status", mediaMergePatch, `{"status":{"readyReplicas":1}}`).must(t, http.StatusOK).obj(t)
	if jget(patched, "status.readyReplicas") != float64(1) {
		t.Fatalf("got status %v, want readyReplicas 1", patched["status"])
	}
}

func TestScaleSubresource(t *testing.T) {
	e := newTestEnv(t)
	e.post(deployPath, manifest(t, "deployments", "web")).must(t, http.StatusCreated)
	scale := e.get(deployPath+"/web/scale").must(t, http.StatusOK).obj(t)
	if scale["kind"] != "Scale" || scale["apiVersion"] != "autoscaling/v1" || jget(scale, "spec.replicas") != float64(2) ||
		jget(scale, "status.selector") != "app=web" {
		t.Fatalf("got %v, want an autoscaling/v1 Scale of 2 with selector app=web", scale)
	}
	scale = e.patch(deployPath+"/web/scale", mediaMergePatch, `{"spec":{"replicas":3}}`).must(t, http.StatusOK).obj(t)
	if jget(scale, "spec.replicas") != float64(3) {
		t.Fatalf("got scale %v, want 3 replicas", scale)
	}
	d := e.get(deployPath + "/web").obj(t)
	if jget(d, "spec.replicas") != float64(3) || jget(d, "metadata.generation") != float64(2) {
		t.Fatalf("got replicas %v generation %v, want 3 and 2", jget(d, "spec.replicas"), jget(d, "metadata.generation"))
	}
	stale := `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","resourceVersion":"1"},"spec":{"replicas":4}}`
	e.put(deployPath+"/web/scale", stale).status(t, http.StatusConflict, metav1.StatusReasonConflict)
	neg := `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":-1}}`
	e.put(deployPath+"/web/scale", neg).status(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	ok := `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":1}}`
	if got := e.put(deployPath+"/web/scale", ok).must(t, http.StatusOK).obj(t); jget(got, "spec.replicas") != float64(1) {
		t.Fatalf("got %v after PUT scale, want 1 replica", got)
	}
	e.patch(deployPath+"/web/scale?fieldManager=x", mediaApplyPatch, ok).status(t, http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType)
}

// recordingLogs is a LogStreamer fake that writes canned lines and
// remembers what it was asked.
type recordingLogs struct {
	mu   sync.Mutex
	node string
	opts *corev1.PodLogOptions
}

func (l *recordingLogs) StreamLogs(_ context.Context, node string, pod *corev1.Pod, opts *corev1.PodLogOptions, w io.Writer) error {
	l.mu.Lock()
	l.node, l.opts = node, opts
	l.mu.Unlock()
	for i := 1; i <= 3; i++ {
		if _, err := fmt.Fprintf(w, "%s/%s line %d\n", pod.Name, opts.Container, i); err != nil {
			return err
		}
	}
	return nil
}

func TestPodLogs(t *testing.T) {
	logs := &recordingLogs{}
	e := newTestEnv(t, func(c *APIConfig) { c.Logs = logs })
	createBoundPod(t, e, "p1", "pi-1")
	r := e.get(podPath+"/p1/log?container=main&follow=true&tailLines=2&sinceSeconds=3600&timestamps=true&previous=false").must(t, http.StatusOK)
	if r.header.Get("Content-Type") != "text/plain" || string(r.body) != "p1/main line 1\np1/main line 2\np1/main line 3\n" {
		t.Fatalf("got %s %q, want the three lines as text/plain", r.header.Get("Content-Type"), r.body)
	}
	o := logs.opts
	if logs.node != "pi-1" || !o.Follow || *o.TailLines != 2 || *o.SinceSeconds != 3600 || !o.Timestamps || o.Previous {
		t.Fatalf("got node %q options %+v, want pi-1 with follow, tail 2, since 3600, timestamps", logs.node, o)
	}
	e.get(podPath+"/p1/log?container=other").status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	e.get(podPath+"/p1/log?tailLines=x").status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	e.get(podPath+"/p1/log?sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z").status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	e.get(podPath+"/nope/log").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}

func TestPodLogsWithoutAgent(t *testing.T) {
	e := newTestEnv(t)
	createBoundPod(t, e, "p1", "pi-1")
	st := e.get(podPath+"/p1/log?container=main").status(t, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable)
	wantMessage(t, st, `no agent connected for node "pi-1"`)
	e.post(podPath, manifest(t, "pods", "unbound")).must(t, http.StatusCreated)
	e.get(podPath+"/unbound/log").status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
}
