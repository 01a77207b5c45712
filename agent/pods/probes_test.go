package pods

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestProbeThresholds(t *testing.T) {
	now := newFakeClock().Now()
	s := &probeState{p: &corev1.Probe{InitialDelaySeconds: 5, PeriodSeconds: 2, SuccessThreshold: 2, FailureThreshold: 2}}
	if s.due(now.Add(4*time.Second), now) {
		t.Errorf("due before initialDelaySeconds")
	}
	steps := []struct {
		success, wantOK bool
	}{{true, false}, {true, true}, {false, true}, {true, true}, {false, true}, {false, false}, {true, false}, {true, true}}
	at := now.Add(5 * time.Second)
	for i, st := range steps {
		if !s.due(at, now) {
			t.Fatalf("step %d: not due after one period", i)
		}
		s.record(at, st.success)
		if s.ok != st.wantOK {
			t.Fatalf("step %d (success=%v): got ok %v, want %v", i, st.success, s.ok, st.wantOK)
		}
		if s.due(at.Add(time.Second), now) {
			t.Fatalf("step %d: due again within the period", i)
		}
		at = at.Add(2 * time.Second)
	}
}

func execProbe(period int32) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}},
		PeriodSeconds: period, FailureThreshold: 2}
}

func TestReadinessDrivesReady(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Spec.Containers[0].ReadinessProbe = execProbe(1)
	h := newHarness(t, pod)
	h.rt.execCode["app"] = 1
	s := h.step()
	if condition(s, corev1.PodReady) != corev1.ConditionFalse {
		t.Fatalf("before a passing probe: got Ready=%s, want False", condition(s, corev1.PodReady))
	}
	h.rt.execCode["app"] = 0
	h.clock.Advance(time.Second)
	s = h.step()
	if condition(s, corev1.PodReady) != corev1.ConditionTrue || !ctrStatus(t, s, "app").Ready {
		t.Fatalf("probe passing: got Ready=%s, want True", condition(s, corev1.PodReady))
	}
	h.rt.execCode["app"] = 1
	for i := 0; i < 2; i++ {
		h.clock.Advance(time.Second)
		s = h.step()
	}
	if condition(s, corev1.PodReady) != corev1.ConditionFalse || len(h.rt.running("app")) != 1 {
		t.Fatalf("readiness failing twice: got Ready=%s running %d, want False and not restarted", condition(s, corev1.PodReady), len(h.rt.running("app")))
	}
}

func TestLivenessFailureRestarts(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Spec.Containers[0].LivenessProbe = execProbe(1)
	pod.Spec.TerminationGracePeriodSeconds = new(int64)
	*pod.Spec.TerminationGracePeriodSeconds = 7
	h := newHarness(t, pod)
	h.step()
	first := h.rt.running("app")[0]
	h.rt.execCode["app"] = 1
	h.step() // first failure
	h.clock.Advance(time.Second)
	s := h.step() // second failure: killed and restarted
	if c := ctrStatus(t, s, "app"); c.RestartCount != 1 || c.State.Running == nil {
		t.Fatalf("liveness failed: got restartCount %d state %+v, want 1 running", c.RestartCount, c.State)
	}
	if g := h.rt.stops[first]; g != 7*time.Second {
		t.Errorf("stop grace: got %s, want 7s", g)
	}
}

func TestStartupProbeHoldsLiveness(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Spec.Containers[0].StartupProbe = execProbe(1)
	pod.Spec.Containers[0].LivenessProbe = execProbe(1)
	h := newHarness(t, pod)
	h.rt.execCode["app"] = 1
	s := h.step()
	if c := ctrStatus(t, s, "app"); *c.Started || c.Ready {
		t.Fatalf("startup failing: got started %v ready %v, want false false", *c.Started, c.Ready)
	}
	h.rt.execCode["app"] = 0
	h.clock.Advance(time.Second)
	if c := ctrStatus(t, h.step(), "app"); !*c.Started || !c.Ready {
		t.Fatalf("startup passed: got started %v ready %v, want true true", *c.Started, c.Ready)
	}
}

func TestHTTPAndTCPProbes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	_, portStr, _ := net.SplitHostPort(srv.Listener.Addr().String())
	port, _ := strconv.Atoi(portStr)
	c := &corev1.Container{Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: int32(port)}}}
	h := newHarness(t, testPod(corev1.RestartPolicyAlways, "app"))
	cases := []struct {
		name string
		p    corev1.ProbeHandler
		want bool
	}{
		{"http ok", corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}}, true},
		{"http 500", corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/bad", Port: intstr.FromInt32(int32(port))}}, false},
		{"tcp open", corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(int32(port))}}, true},
		{"tcp closed", corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(1)}}, false},
		{"unknown port name", corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("nope")}}, false},
	}
	for _, tc := range cases {
		if got := h.w.probe(context.Background(), c, "x", &corev1.Probe{ProbeHandler: tc.p}); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
