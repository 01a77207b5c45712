package pods

import (
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	corev1 "k8s.io/api/core/v1"
)

// grpcHealthServer serves the standard health service on loopback, where
// a host-network pod's probes go; "web" is SERVING, "db" NOT_SERVING.
func grpcHealthServer(t testing.TB) int32 {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	hs := health.NewServer()
	hs.SetServingStatus("web", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus("db", healthpb.HealthCheckResponse_NOT_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return int32(lis.Addr().(*net.TCPAddr).Port)
}

func shContainer(name, script string) corev1.Container {
	return corev1.Container{Name: name, Image: busybox, ImagePullPolicy: corev1.PullNever, Command: []string{"sh", "-c", script}}
}

func grpcReadiness(port int32, service string) *corev1.Probe {
	return &corev1.Probe{PeriodSeconds: 1, ProbeHandler: corev1.ProbeHandler{
		GRPC: &corev1.GRPCAction{Port: port, Service: &service}}}
}

// One pod shows the rest of the lifecycle on real containers: a failing
// postStart hook kills its container with FailedPostStartHook; a startup
// probe holds back a liveness probe that would fail meanwhile; exit
// messages come from terminationMessagePath or, with
// FallbackToLogsOnError, the log; gRPC readiness probes ask the health
// service; activeDeadlineSeconds fails the pod with DeadlineExceeded.
// The deadline is set once the rest has been seen (a running pod's may
// be, as upstream's): the containers start one after the other, and on a
// loaded machine a deadline set from the start could pass before the last
// one is Ready.
func TestRealLifecycleHooksMessagesProbesDeadline(t *testing.T) {
	rt, _, _ := realRuntime(t)
	log, evs := &statusLog{}, &eventLog{}
	m, _ := realManager(t, rt, &fakeStore{}, log, func(c *Config) { c.Events = evs })
	port := grpcHealthServer(t)
	pod := busyboxPod("lifecycle-1", "")
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	hooked := shContainer("hooked", "sleep 600")
	hooked.Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{
		Command: []string{"sh", "-c", "echo hook-said-no; exit 3"}}}}
	msg := shContainer("msg", "echo -n bye > /tmp/end; echo noise; exit 1")
	msg.TerminationMessagePath = "/tmp/end"
	logs := shContainer("logs", "echo first; echo boom; exit 2")
	logs.TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
	web, db := shContainer("web", "sleep 600"), shContainer("db", "sleep 600")
	web.ReadinessProbe, db.ReadinessProbe = grpcReadiness(port, "web"), grpcReadiness(port, "db")
	// Its liveness probe fails until /tmp/up exists: only the startup
	// probe holding it back keeps the container from being restarted.
	slow := shContainer("slow", "sleep 3; touch /tmp/up; sleep 600")
	up := corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"test", "-f", "/tmp/up"}}}
	slow.StartupProbe = &corev1.Probe{ProbeHandler: up, PeriodSeconds: 1, FailureThreshold: 30}
	slow.LivenessProbe = &corev1.Probe{ProbeHandler: up, PeriodSeconds: 1, FailureThreshold: 1}
	pod.Spec.Containers = []corev1.Container{hooked, msg, logs, web, db, slow}
	m.Sync([]*corev1.Pod{pod})

	s := waitStatus(t, log, pod.UID, 20*time.Second, "messages, gRPC readiness, slow started", func(s corev1.PodStatus) bool {
		return ctrStatus(t, s, "web").Ready && ctrStatus(t, s, "slow").Ready && ctrStatus(t, s, "logs").State.Terminated != nil &&
			ctrStatus(t, s, "msg").State.Terminated != nil && ctrStatus(t, s, "hooked").State.Terminated != nil
	})
	if c := ctrStatus(t, s, "slow"); c.RestartCount != 0 || c.Started == nil || !*c.Started {
		t.Errorf("slow container: got restarts %d started %v, want 0 and true (liveness waits for the startup probe)", c.RestartCount, c.Started)
	}
	if got := ctrStatus(t, s, "msg").State.Terminated.Message; got != "bye" {
		t.Errorf("msg container: got message %q, want the file's %q", got, "bye")
	}
	if got := ctrStatus(t, s, "logs").State.Terminated.Message; got != "first\nboom\n" {
		t.Errorf("logs container: got message %q, want the log's tail", got)
	}
	if ctrStatus(t, s, "db").Ready || evs.count("Unhealthy", `service unhealthy (responded with "NOT_SERVING")`) == 0 {
		t.Errorf("db container: got ready %v and no Unhealthy NOT_SERVING event, want not ready with one", ctrStatus(t, s, "db").Ready)
	}
	if evs.count("FailedPostStartHook", "hook-said-no") != 1 {
		t.Errorf("hooked container: got events %+v, want one FailedPostStartHook with the hook's output", evs.evs)
	}
	if s.StartTime == nil {
		t.Fatal("pod status without startTime")
	}
	withDeadline := pod.DeepCopy() // 2s from now, counted from startTime
	withDeadline.Spec.ActiveDeadlineSeconds = ptrTo(int64(time.Since(s.StartTime.Time)/time.Second) + 2)
	m.Sync([]*corev1.Pod{withDeadline})
	s = waitStatus(t, log, pod.UID, 20*time.Second, "pod Failed with DeadlineExceeded", func(s corev1.PodStatus) bool {
		return s.Phase == corev1.PodFailed && ctrStatus(t, s, "web").State.Terminated != nil
	})
	if s.Reason != ReasonDeadlineExceeded || !strings.Contains(s.Message, "deadline") {
		t.Errorf("pod past its deadline: got reason %q message %q, want %s", s.Reason, s.Message, ReasonDeadlineExceeded)
	}
	if evs.count(ReasonDeadlineExceeded, "longer than the specified deadline") != 1 {
		t.Errorf("pod past its deadline: got events %+v, want one DeadlineExceeded", evs.evs)
	}
}
