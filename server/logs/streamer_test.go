package logs_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/agent/runtime/logdriver"
	"github.com/bramble-edge/bramble/server/logs"
)

func testPod(node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p", UID: "uid-1"},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c"}}}}
}

func i64(n int64) *int64 { return &n }

func TestStreamLogsThroughTheBroker(t *testing.T) {
	c := newCluster(t)
	n := c.addNode(t, "pi-1")
	w, err := logdriver.OpenWriter(n.logPath("uid-1", "c", 0), 1<<20, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, l := range []string{"one", "two", "three"} {
		w.WriteLine("stdout", false, []byte(l))
	}
	s := logs.New(c.bus, quiet())
	for _, tc := range []struct {
		name string
		opts corev1.PodLogOptions
		want func(string) bool
	}{
		{"full", corev1.PodLogOptions{}, func(s string) bool { return s == "one\ntwo\nthree\n" }},
		{"tail 2", corev1.PodLogOptions{TailLines: i64(2)}, func(s string) bool { return s == "two\nthree\n" }},
		{"limit 5", corev1.PodLogOptions{LimitBytes: i64(5)}, func(s string) bool { return s == "one\nt" }},
		{"timestamps", corev1.PodLogOptions{Timestamps: true, TailLines: i64(1)}, func(s string) bool {
			ts, text, _ := strings.Cut(s, " ")
			_, err := time.Parse(time.RFC3339Nano, ts)
			return err == nil && text == "three\n"
		}},
	} {
		tc.opts.Container = "c"
		var out syncBuffer
		if err := s.StreamLogs(t.Context(), "pi-1", testPod("pi-1"), &tc.opts, &out); err != nil {
			t.Fatalf("%s: StreamLogs: %v", tc.name, err)
		}
		if got := out.String(); !tc.want(got) {
			t.Errorf("%s: got %q", tc.name, got)
		}
	}
}

func TestStreamLogsErrors(t *testing.T) {
	c := newCluster(t)
	c.addNode(t, "pi-1")
	s := logs.New(c.bus, quiet())
	s.FirstReply = 500 * time.Millisecond
	var out syncBuffer
	err := s.StreamLogs(t.Context(), "pi-1", testPod("pi-1"), &corev1.PodLogOptions{Container: "c"}, &out)
	if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), `container "c" in pod "p" not found on node pi-1`) {
		t.Fatalf("missing log: got %v, want a NotFound naming the container", err)
	}
	err = s.StreamLogs(t.Context(), "pi-2", testPod("pi-2"), &corev1.PodLogOptions{Container: "c"}, &out)
	want := `node "pi-2" did not answer the log request within 500ms: is its agent running?`
	if !apierrors.IsServiceUnavailable(err) || err.Error() != want {
		t.Fatalf("absent node: got %v, want ServiceUnavailable %q", err, want)
	}
}

func TestStreamLogsFollowUntilCancelled(t *testing.T) {
	c := newCluster(t)
	n := c.addNode(t, "pi-1")
	w, err := logdriver.OpenWriter(n.logPath("uid-1", "c", 0), 400, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.WriteLine("stdout", false, []byte("before"))
	s := logs.New(c.bus, quiet())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- s.StreamLogs(ctx, "pi-1", testPod("pi-1"), &corev1.PodLogOptions{Container: "c", Follow: true}, &out)
	}()
	waitUntil(t, "the existing line", func() bool { return out.String() == "before\n" })
	want := "before\n"
	for i := range 20 { // several rotations of 400 bytes, likely within one poll; 5 files hold them all
		line := strings.Repeat("x", 30) + string(rune('a'+i))
		w.WriteLine("stdout", false, []byte(line))
		want += line + "\n"
	}
	waitUntil(t, "the appended lines", func() bool { return out.String() == want })

	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("StreamLogs after cancel: got %v, want context.Canceled", err)
		}
	case <-time.After(waitLong):
		t.Fatal("StreamLogs did not return after its context was cancelled")
	}
	waitUntil(t, "the agent to end its stream", func() bool { return n.h.Active() == 0 })
}
