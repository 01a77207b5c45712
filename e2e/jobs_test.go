package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/bench/hollow/hollownode"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

const indexedJob = `apiVersion: batch/v1
kind: Job
metadata: {name: sweep}
spec:
  completionMode: Indexed
  completions: 5
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: sweep, image: registry.lan/sweep:v1}]
`

// TestIndexedJobAcrossServerRestart runs an Indexed Job of 5 completions,
// 2 at a time, on hollow nodes and restarts the server binary while it
// runs (two pods finish while the server is down): every index 0-4
// completes exactly once, and the tracking finalizers keep every
// completion counted.
func TestIndexedJobAcrossServerRestart(t *testing.T) {
	s := cluster.StartServer(t)
	startFleet(t, s, cluster.JoinToken(t, s), hollownode.Config{Prefix: "pi", Nodes: 2, Arch: "arm64",
		SucceedAfter: 8 * time.Second})
	waitNodes(t, s, 2)
	apply(t, s, indexedJob)
	t.Cleanup(func() {
		if t.Failed() {
			out, _, _ := s.Kubectl("get", "job", "sweep", "-o", "jsonpath={.status}")
			pods, _, _ := s.Kubectl("get", "pods", "-o", "custom-columns=NAME:.metadata.name,PHASE:.status.phase,FIN:.metadata.finalizers,DEL:.metadata.deletionTimestamp,NODE:.spec.nodeName")
			t.Logf("job status: %s\npods:\n%s\nserver log tail:\n%s", out, pods, tail(s.Logs(), 60))
		}
	})
	var job batchv1.Job
	// Stop the server just after the second pair of indexes started, so
	// that they finish while it is down (a pod status sent while the
	// server is shutting down can be lost: see the report of branch h-jobs).
	cluster.WaitFor(t, 60*time.Second, func() bool {
		return getJSON(s, &job, "job", "sweep") && job.Status.Succeeded == 2 && job.Status.Active == 2
	}, "two completed indexes and the next two pods running")
	s.Stop()
	time.Sleep(9 * time.Second) // the running pods finish while the server is down
	s.Start()
	cluster.WaitFor(t, 90*time.Second, func() bool {
		return getJSON(s, &job, "job", "sweep") && conditionTrue(job.Status.Conditions, batchv1.JobComplete)
	}, "the Job Complete after the restart")
	if st := job.Status; st.Succeeded != 5 || st.CompletedIndexes != "0-4" || st.Failed != 0 {
		t.Errorf("status succeeded %d completedIndexes %q failed %d, want 5, \"0-4\", 0", st.Succeeded, st.CompletedIndexes, st.Failed)
	}
	var indexes []string
	for _, p := range listPods(s, "batch.kubernetes.io/job-name=sweep") {
		i := p.Annotations[batchv1.JobCompletionIndexAnnotation]
		if p.Status.Phase == corev1.PodSucceeded {
			indexes = append(indexes, i)
		}
		if slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) || p.Spec.Hostname != "sweep-"+i {
			t.Errorf("pod %s: finalizers %v hostname %q, want none left and sweep-%s", p.Name, p.Finalizers, p.Spec.Hostname, i)
		}
	}
	slices.Sort(indexes)
	if got := strings.Join(indexes, ","); got != "0,1,2,3,4" {
		t.Errorf("succeeded pods ran indexes %s, want 0,1,2,3,4 once each\n%s", got, tail(s.Logs(), 40))
	}
}

func conditionTrue(conds []batchv1.JobCondition, typ batchv1.JobConditionType) bool {
	for _, c := range conds {
		if c.Type == typ && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
