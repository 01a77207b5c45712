package nodestatus_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/nodestatus"
)

// boundPod creates a pod through the API and binds it to node.
func (e *env) boundPod(name, node string) *corev1.Pod {
	e.t.Helper()
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: "busybox:1.36"}}}}
	out, err := e.api.Registry().Client().Create(ctx, pod)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.api.Registry().Client().Bind(ctx, "default", name, node); err != nil {
		e.t.Fatal(err)
	}
	return out.(*corev1.Pod)
}

func (e *env) pod(name string) *corev1.Pod {
	e.t.Helper()
	res, _ := api.Lookup("", "v1", "pods")
	kv, err := e.store.Get(context.Background(), res.Key("default", name))
	if err != nil {
		e.t.Fatal(err)
	}
	obj, _, err := api.DecodeJSON(res, kv.Value, false)
	if err != nil {
		e.t.Fatal(err)
	}
	return obj.(*corev1.Pod)
}

func running(pod *corev1.Pod) mqtt.PodStatusEntry {
	now := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	return mqtt.PodStatusEntry{Namespace: pod.Namespace, Name: pod.Name, UID: string(pod.UID),
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &now, HostIP: "10.0.0.7",
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "main", Ready: true, Image: "busybox:1.36",
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}}}
}

func (a *agent) report(t testing.TB, pods ...mqtt.PodStatusEntry) {
	t.Helper()
	data, err := (&mqtt.PodStatusReport{Node: a.name, Pods: pods}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	a.publish(t, mqtt.PodStatusTopic(a.name), false, data)
}

// TestPodStatusWrittenOnlyWhenChanged: a report is written once; repeats,
// reports about another node's pod and about an earlier pod of the same
// name write nothing.
func TestPodStatusWrittenOnlyWhenChanged(t *testing.T) {
	e := newEnv(t, nodestatus.Config{GracePeriod: time.Hour})
	a := e.connect(t, "pi-1")
	mine, theirs := e.boundPod("mine", "pi-1"), e.boundPod("theirs", "pi-2")

	// The repeats below are this very report: running stamps the current
	// second, so a second call can make a different status (a write due).
	first := running(mine)
	a.report(t, first)
	waitUntil(t, "pod mine Running", func() bool { return e.pod("mine").Status.Phase == corev1.PodRunning })
	st := e.pod("mine").Status
	if len(st.ContainerStatuses) != 1 || !st.ContainerStatuses[0].Ready {
		t.Errorf("container statuses: got %+v, want main ready", st.ContainerStatuses)
	}
	if !hasCondition(st.Conditions, corev1.PodScheduled) {
		t.Errorf("conditions: got %+v, want the scheduler's PodScheduled kept", st.Conditions)
	}

	// The monitor counts a write once the store has answered it, which can
	// come after the pod is seen Running: wait for that write's count.
	waitUntil(t, "the Running write counted", func() bool { return e.mon.Stats().PodWrites >= 1 })
	before := e.mon.Stats().PodWrites // not the store's revision: Node writes may still come
	stale := first
	stale.UID = "an-earlier-pod"
	reports := e.mon.Stats().PodReports
	a.report(t, first)
	a.report(t, first, running(theirs))
	a.report(t, stale)
	waitUntil(t, "three reports counted", func() bool { return e.mon.Stats().PodReports == reports+3 })

	done := running(mine)
	done.Status.Phase = corev1.PodSucceeded
	done.Status.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: 0, Reason: "Completed", StartedAt: *done.Status.StartTime, FinishedAt: *done.Status.StartTime}}
	done.Status.ContainerStatuses[0].Ready = false
	a.report(t, done)
	waitUntil(t, "pod mine Succeeded", func() bool { return e.pod("mine").Status.Phase == corev1.PodSucceeded })
	// As with the Running write, the count can come after the pod is seen.
	waitUntil(t, "the Succeeded write counted", func() bool { return e.mon.Stats().PodWrites > before })
	if got := e.mon.Stats().PodWrites - before; got != 1 {
		t.Errorf("writes for three ignorable reports and one change: got %d, want 1", got)
	}
	if got := e.pod("theirs").Status.Phase; got != corev1.PodPending {
		t.Errorf("pod theirs (bound to pi-2, reported by pi-1): got phase %s, want Pending", got)
	}

	a.report(t, running(mine)) // a finished pod never runs again
	waitUntil(t, "report counted", func() bool { return e.mon.Stats().PodReports == reports+5 })
	time.Sleep(200 * time.Millisecond)
	if got := e.pod("mine").Status.Phase; got != corev1.PodSucceeded {
		t.Errorf("after a Running report for a Succeeded pod: got %s, want Succeeded", got)
	}
}

func hasCondition(conds []corev1.PodCondition, t corev1.PodConditionType) bool {
	for _, c := range conds {
		if c.Type == t {
			return true
		}
	}
	return false
}
