package tables

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

func TestPodTable(t *testing.T) {
	const spec = "spec: {nodeName: pi1, containers: [{name: a, image: x}, {name: b, image: x}]}\n"
	tests := []struct {
		name, manifest string
		want           string
	}{
		{"pending", "metadata: {name: p}\n" + spec + "status: {phase: Pending}",
			"p|0/2|Pending|0|5m|<none>|pi1|<none>|<none>"},
		{"running", "metadata: {name: p}\n" + spec + `status:
  phase: Running
  podIPs: [{ip: 10.42.0.7}]
  containerStatuses:
  - {name: a, ready: true, state: {running: {}}}
  - {name: b, ready: true, state: {running: {}}, restartCount: 2, lastState: {terminated: {exitCode: 1, finishedAt: "2026-11-21T11:58:00Z"}}}`,
			"p|2/2|Running|2 (2m ago)|5m|10.42.0.7|pi1|<none>|<none>"},
		{"creating", "metadata: {name: p}\n" + spec + `status:
  phase: Pending
  containerStatuses:
  - {name: a, state: {waiting: {reason: ContainerCreating}}}
  - {name: b, state: {waiting: {reason: ContainerCreating}}}`,
			"p|0/2|ContainerCreating|0|5m|<none>|pi1|<none>|<none>"},
		{"crashloop", "metadata: {name: p}\n" + spec + `status:
  phase: Running
  containerStatuses:
  - {name: a, restartCount: 5, state: {waiting: {reason: CrashLoopBackOff}}}
  - {name: b, ready: true, state: {running: {}}}`,
			"p|1/2|CrashLoopBackOff|5|5m|<none>|pi1|<none>|<none>"},
		{"completed", "metadata: {name: p}\n" + spec + `status:
  phase: Succeeded
  containerStatuses:
  - {name: a, state: {terminated: {exitCode: 0, reason: Completed}}}
  - {name: b, state: {terminated: {exitCode: 0, reason: Completed}}}`,
			"p|0/2|Completed|0|5m|<none>|pi1|<none>|<none>"},
		{"completed one still running", "metadata: {name: p}\n" + spec + `status:
  phase: Running
  conditions: [{type: Ready, status: "False"}]
  containerStatuses:
  - {name: a, state: {terminated: {exitCode: 0, reason: Completed}}}
  - {name: b, ready: true, state: {running: {}}}`,
			"p|1/2|NotReady|0|5m|<none>|pi1|<none>|<none>"},
		{"error exit", "metadata: {name: p}\n" + spec + `status:
  phase: Failed
  containerStatuses:
  - {name: a, state: {terminated: {exitCode: 2}}}
  - {name: b, state: {terminated: {exitCode: 0, signal: 9}}}`,
			"p|0/2|ExitCode:2|0|5m|<none>|pi1|<none>|<none>"},
		{"init running", "metadata: {name: p}\nspec: {initContainers: [{name: i1, image: x}, {name: i2, image: x}], containers: [{name: a, image: x}]}\n" + `status:
  phase: Pending
  initContainerStatuses:
  - {name: i1, state: {terminated: {exitCode: 0}}}
  - {name: i2, restartCount: 1, state: {running: {}}}`,
			"p|0/1|Init:1/2|1|5m|<none>|<none>|<none>|<none>"},
		{"init failed", "metadata: {name: p}\nspec: {initContainers: [{name: i1, image: x}], containers: [{name: a, image: x}]}\n" + `status:
  phase: Pending
  initContainerStatuses:
  - {name: i1, state: {terminated: {exitCode: 3}}}`,
			"p|0/1|Init:ExitCode:3|0|5m|<none>|<none>|<none>|<none>"},
		{"init image pull", "metadata: {name: p}\nspec: {initContainers: [{name: i1, image: x}], containers: [{name: a, image: x}]}\n" + `status:
  phase: Pending
  initContainerStatuses:
  - {name: i1, state: {waiting: {reason: ErrImagePull}}}`,
			"p|0/1|Init:ErrImagePull|0|5m|<none>|<none>|<none>|<none>"},
		{"sidecar", "metadata: {name: p}\nspec: {initContainers: [{name: s, image: x, restartPolicy: Always}], containers: [{name: a, image: x}]}\n" + `status:
  phase: Running
  conditions: [{type: Initialized, status: "True"}]
  initContainerStatuses:
  - {name: s, ready: true, started: true, restartCount: 1, state: {running: {}}}
  containerStatuses:
  - {name: a, ready: true, state: {running: {}}}`,
			"p|2/2|Running|1|5m|<none>|<none>|<none>|<none>"},
		{"terminating", "metadata: {name: p, deletionTimestamp: '2026-11-21T11:59:00Z'}\n" + spec + "status: {phase: Running}",
			"p|0/2|Terminating|0|5m|<none>|pi1|<none>|<none>"},
		{"terminated pod stays", "metadata: {name: p, deletionTimestamp: '2026-11-21T11:59:00Z'}\n" + spec + "status: {phase: Succeeded}",
			"p|0/2|Succeeded|0|5m|<none>|pi1|<none>|<none>"},
		{"node lost", "metadata: {name: p, deletionTimestamp: '2026-11-21T11:59:00Z'}\n" + spec + "status: {phase: Running, reason: NodeLost}",
			"p|0/2|Unknown|0|5m|<none>|pi1|<none>|<none>"},
		{"evicted", "metadata: {name: p}\n" + spec + "status: {phase: Failed, reason: Evicted}",
			"p|0/2|Evicted|0|5m|<none>|pi1|<none>|<none>"},
		{"gated", "metadata: {name: p}\n" + spec + "status: {phase: Pending, conditions: [{type: PodScheduled, status: 'False', reason: SchedulingGated}]}",
			"p|0/2|SchedulingGated|0|5m|<none>|pi1|<none>|<none>"},
		{"readiness gates", "metadata: {name: p}\nspec: {readinessGates: [{conditionType: x/ok}, {conditionType: x/lb}], containers: [{name: a, image: x}]}\n" +
			"status: {phase: Running, conditions: [{type: x/ok, status: 'True'}], podIP: 10.0.0.1, nominatedNodeName: pi9}",
			"p|0/1|Running|0|5m|10.0.0.1|<none>|pi9|1/2"},
	}
	header := "NAME|READY|STATUS|RESTARTS|AGE|IP*|NODE*|NOMINATED NODE*|READINESS GATES*\n"
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := aged(t, "Pod", tc.manifest, 5*time.Minute)
			tab, err := Table(res(t, "Pod"), []api.Object{obj}, Options{Now: tableNow})
			if err != nil {
				t.Fatal(err)
			}
			if got := render(t, tab); got != header+tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, header+tc.want)
			}
		})
	}
}

func TestPodSummaryZeroTime(t *testing.T) {
	p := &corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{RestartCount: 1,
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: metav1.Time{}}}}}}}
	s := PodSummary(p)
	if s.Restarts != 1 || !s.LastRestart.IsZero() {
		t.Errorf("got %+v, want 1 restart without a time", s)
	}
	tab, err := Table(res(t, "Pod"), []api.Object{p}, Options{Now: tableNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Rows[0].Cells[3]; got != "1" {
		t.Errorf("restarts cell: got %q, want 1", got)
	}
	if got := tab.Rows[0].Cells[4]; got != "<unknown>" {
		t.Errorf("age of a pod without creationTimestamp: got %q, want <unknown>", got)
	}
}
