package job

import (
	"fmt"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/controllers/controllertest"
)

func TestCompletionsWithParallelism(t *testing.T) {
	h := start(t)
	h.runAgent(150*time.Millisecond, always(corev1.PodSucceeded))
	job := h.createJob(jobObject("batch", i32(3), i32(2)))
	peak := h.monitorActive(job)
	job = h.waitCondition("batch", batchv1.JobComplete)
	if got := peak.stop(); got != 2 {
		t.Errorf("at most %d pods were active at once, want exactly parallelism 2", got)
	}
	s := job.Status
	if s.Succeeded != 3 || s.Active != 0 || s.Failed != 0 || s.StartTime == nil || s.CompletionTime == nil {
		t.Errorf("status %+v, want 3 succeeded, 0 active, 0 failed, start and completion times", s)
	}
	if c := condition(job, batchv1.JobComplete); c.Reason != batchv1.JobReasonCompletionsReached {
		t.Errorf("Complete reason %q, want %q", c.Reason, batchv1.JobReasonCompletionsReached)
	}
	if c := condition(job, batchv1.JobSuccessCriteriaMet); c == nil || c.Status != corev1.ConditionTrue {
		t.Errorf("SuccessCriteriaMet condition %+v, want True", c)
	}
	if pods := h.jobPods(job); len(pods) != 3 {
		t.Errorf("%d pods left, want the 3 finished ones kept for their logs", len(pods))
	}
	for _, pod := range h.jobPods(job) {
		if pod.Labels[batchv1.JobNameLabel] != "batch" || pod.GenerateName != "batch-" {
			t.Errorf("pod %s labels %v generateName %q, want job-name batch and batch-", pod.Name, pod.Labels, pod.GenerateName)
		}
	}
	h.waitEvent(job, "SuccessfulCreate")
	h.waitEvent(job, "Completed")
}

// activeMonitor samples the cache and keeps the most pods of one Job seen
// active (neither finished nor terminating) at once.
type activeMonitor struct {
	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	peak int
}

func (h *harness) monitorActive(job *batchv1.Job) *activeMonitor {
	m := &activeMonitor{done: make(chan struct{})}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		for {
			select {
			case <-m.done:
				return
			case <-time.After(2 * time.Millisecond):
			}
			n := 0
			for _, pod := range h.jobPods(job) {
				if pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed && pod.DeletionTimestamp == nil {
					n++
				}
			}
			m.mu.Lock()
			m.peak = max(m.peak, n)
			m.mu.Unlock()
		}
	}()
	return m
}

func (m *activeMonitor) stop() int {
	close(m.done)
	m.wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peak
}

func TestRetriesFailedPodsThenCompletes(t *testing.T) {
	h := start(t)
	h.runAgent(50*time.Millisecond, func(i int) corev1.PodPhase {
		if i < 2 {
			return corev1.PodFailed
		}
		return corev1.PodSucceeded
	})
	h.createJob(jobObject("flaky", nil, nil))
	job := h.waitCondition("flaky", batchv1.JobComplete)
	if s := job.Status; s.Failed != 2 || s.Succeeded != 1 || s.Active != 0 {
		t.Errorf("status failed %d succeeded %d active %d, want 2, 1, 0", s.Failed, s.Succeeded, s.Active)
	}
	if pods := h.jobPods(job); len(pods) != 3 {
		t.Errorf("%d pods, want 3 (two failed, one succeeded)", len(pods))
	}
}

func TestBackoffLimitExceeded(t *testing.T) {
	h := start(t)
	h.runAgent(20*time.Millisecond, always(corev1.PodFailed))
	obj := jobObject("doomed", nil, nil)
	obj.Spec.BackoffLimit = i32(1)
	h.createJob(obj)
	job := h.waitCondition("doomed", batchv1.JobFailed)
	if c := condition(job, batchv1.JobFailed); c.Reason != batchv1.JobReasonBackoffLimitExceeded {
		t.Errorf("Failed reason %q, want %q", c.Reason, batchv1.JobReasonBackoffLimitExceeded)
	}
	if c := condition(job, batchv1.JobFailureTarget); c == nil || c.Status != corev1.ConditionTrue {
		t.Errorf("FailureTarget condition %+v, want True", c)
	}
	if s := job.Status; s.Failed != 2 || s.Active != 0 || s.CompletionTime != nil {
		t.Errorf("status failed %d active %d completionTime %v, want 2, 0, none", s.Failed, s.Active, s.CompletionTime)
	}
	h.waitEvent(job, batchv1.JobReasonBackoffLimitExceeded)
	time.Sleep(300 * time.Millisecond) // a finished Job must start nothing more
	if pods := h.jobPods(job); len(pods) != 2 {
		t.Errorf("%d pods, want the 2 failed ones", len(pods))
	}
}

func TestOnFailureRestartsCountTowardsBackoffLimit(t *testing.T) {
	h := start(t)
	obj := jobObject("crashloop", nil, nil)
	obj.Spec.BackoffLimit = i32(2)
	obj.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	job := h.createJob(obj)
	var pod *corev1.Pod
	h.Eventually(waitFor, func() error {
		if pods := h.jobPods(job); len(pods) == 1 {
			pod = pods[0].DeepCopy()
			return nil
		}
		return fmt.Errorf("no pod yet")
	})
	pod.Status.Phase = corev1.PodRunning
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "work", Image: "registry.local/batch:1", RestartCount: 2}}
	if _, err := h.Client.UpdateStatus(h.Ctx, pod); err != nil {
		t.Fatalf("update pod status: %v", err)
	}
	job = h.waitCondition("crashloop", batchv1.JobFailed)
	if c := condition(job, batchv1.JobFailed); c.Reason != batchv1.JobReasonBackoffLimitExceeded {
		t.Errorf("Failed reason %q, want %q", c.Reason, batchv1.JobReasonBackoffLimitExceeded)
	}
	h.Eventually(waitFor, func() error {
		if n := len(h.jobPods(job)); n != 0 {
			return fmt.Errorf("%d pods, want the restarting one deleted", n)
		}
		return nil
	})
}

func TestActiveDeadlineExceeded(t *testing.T) {
	h := start(t)
	h.runAgent(0, always(""))
	obj := jobObject("slow", i32(4), i32(2))
	obj.Spec.ActiveDeadlineSeconds = new(int64)
	*obj.Spec.ActiveDeadlineSeconds = 1
	h.createJob(obj)
	job := h.waitCondition("slow", batchv1.JobFailed)
	if c := condition(job, batchv1.JobFailed); c.Reason != batchv1.JobReasonDeadlineExceeded {
		t.Errorf("Failed reason %q, want %q", c.Reason, batchv1.JobReasonDeadlineExceeded)
	}
	if job.Status.Active != 0 {
		t.Errorf("active %d, want 0", job.Status.Active)
	}
	h.Eventually(waitFor, func() error {
		if n := len(h.jobPods(job)); n != 0 {
			return fmt.Errorf("%d pods, want the running ones deleted", n)
		}
		return nil
	})
	h.waitEvent(job, batchv1.JobReasonDeadlineExceeded)
}

func TestTTLAfterFinishedDeletesJob(t *testing.T) {
	h := start(t)
	h.runAgent(0, always(corev1.PodSucceeded))
	obj := jobObject("shortlived", nil, nil)
	obj.Spec.TTLSecondsAfterFinished = i32(1)
	h.createJob(obj)
	h.waitCondition("shortlived", batchv1.JobComplete)
	h.Eventually(waitFor, func() error {
		_, err := h.Client.Get(h.Ctx, jobResource, "default", "shortlived")
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("get job after its TTL: err %v, want NotFound", err)
	})
}

func TestSuspendAndResume(t *testing.T) {
	h := start(t)
	h.runAgent(50*time.Millisecond, always(corev1.PodSucceeded))
	obj := jobObject("paused", i32(2), i32(2))
	obj.Spec.Suspend = new(bool)
	*obj.Spec.Suspend = true
	job := h.createJob(obj)
	h.waitCondition("paused", batchv1.JobSuspended)
	if n := len(h.jobPods(job)); n != 0 {
		t.Fatalf("%d pods of a suspended job, want 0", n)
	}
	controllertest.Edit(h.Env, jobResource, "default", "paused", func(cur *batchv1.Job) { *cur.Spec.Suspend = false })
	job = h.waitCondition("paused", batchv1.JobComplete)
	if c := condition(job, batchv1.JobSuspended); c == nil || c.Status != corev1.ConditionFalse {
		t.Errorf("Suspended condition %+v, want False after resuming", c)
	}
	if job.Status.Succeeded != 2 {
		t.Errorf("succeeded %d, want 2", job.Status.Succeeded)
	}
}
