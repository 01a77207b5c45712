package job

import (
	"context"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// exitAgent ends every new pod at once with the exit code code(pod)
// gives: 0 succeeds, -1 keeps it running, anything else fails it.
func (h *harness) exitAgent(code func(pod *corev1.Pod) int32) {
	h.Go(func(ctx context.Context) {
		for ctx.Err() == nil {
			for _, o := range h.pods.List("", nil) {
				pod := o.(*corev1.Pod)
				if pod.Status.Phase == "" || pod.Status.Phase == corev1.PodPending {
					h.exit(ctx, pod, code(pod))
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func (h *harness) exit(ctx context.Context, pod *corev1.Pod, code int32) {
	cp := pod.DeepCopy()
	cp.Status.Phase = corev1.PodRunning
	state := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	if code >= 0 {
		cp.Status.Phase = map[bool]corev1.PodPhase{true: corev1.PodSucceeded, false: corev1.PodFailed}[code == 0]
		state = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, FinishedAt: metav1.Now()}}
	}
	cp.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "work", State: state}}
	if _, err := h.Client.UpdateStatus(ctx, cp); err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		h.T.Errorf("update status of pod %s: %v", pod.Name, err)
	}
}

func indexedJob(name string, completions, parallelism int32) *batchv1.Job {
	job := jobObject(name, i32(completions), i32(parallelism))
	mode := batchv1.IndexedCompletion
	job.Spec.CompletionMode = &mode
	return job
}

func TestPodFailurePolicy(t *testing.T) {
	h := start(t)
	h.exitAgent(func(pod *corev1.Pod) int32 {
		if pod.Labels["job"] == "fatal" {
			return 42
		}
		return 0
	})
	fatal := jobObject("fatal", i32(1), i32(1))
	fatal.Spec.Template.Labels = map[string]string{"job": "fatal"}
	fatal.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      batchv1.PodFailurePolicyActionFailJob,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}}}}
	job := h.waitCondition(h.createJob(fatal).Name, batchv1.JobFailed)
	if c := condition(job, batchv1.JobFailed); c.Reason != batchv1.JobReasonPodFailurePolicy || job.Status.Failed != 1 {
		t.Errorf("Failed reason %q message %q, failed %d: want PodFailurePolicy after the one pod", c.Reason, c.Message, job.Status.Failed)
	}
	if n := len(h.jobPods(job)); n != 1 {
		t.Errorf("%d pods made, want 1 (FailJob stops retries despite backoffLimit 6)", n)
	}
}

func TestPodFailurePolicyIgnore(t *testing.T) {
	h := start(t)
	var mu sync.Mutex
	failedOnce := false
	h.exitAgent(func(*corev1.Pod) int32 {
		mu.Lock()
		defer mu.Unlock()
		if !failedOnce {
			failedOnce = true
			return 143
		}
		return 0
	})
	obj := jobObject("flaky", i32(1), i32(1))
	obj.Spec.BackoffLimit = i32(0)
	obj.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      batchv1.PodFailurePolicyActionIgnore,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{143}}}}}
	job := h.waitCondition(h.createJob(obj).Name, batchv1.JobComplete)
	if job.Status.Failed != 0 || job.Status.Succeeded != 1 {
		t.Errorf("failed %d succeeded %d, want the ignored failure uncounted (backoffLimit 0 not reached)", job.Status.Failed, job.Status.Succeeded)
	}
}

func TestBackoffLimitPerIndex(t *testing.T) {
	h := start(t)
	h.exitAgent(func(pod *corev1.Pod) int32 {
		if pod.Annotations[batchv1.JobCompletionIndexAnnotation] == "1" {
			return 1
		}
		return 0
	})
	obj := indexedJob("per", 3, 3)
	obj.Spec.BackoffLimitPerIndex = i32(1)
	job := h.waitCondition(h.createJob(obj).Name, batchv1.JobFailed)
	if c := condition(job, batchv1.JobFailed); c.Reason != batchv1.JobReasonFailedIndexes {
		t.Errorf("Failed reason %q, want FailedIndexes", c.Reason)
	}
	if s := job.Status; s.CompletedIndexes != "0,2" || s.FailedIndexes == nil || *s.FailedIndexes != "1" || s.Failed != 2 {
		t.Errorf("completedIndexes %q failedIndexes %v failed %d, want \"0,2\", \"1\", 2 (one retry of index 1)", s.CompletedIndexes, s.FailedIndexes, s.Failed)
	}
}

func TestSuccessPolicy(t *testing.T) {
	h := start(t)
	h.exitAgent(func(pod *corev1.Pod) int32 {
		if pod.Annotations[batchv1.JobCompletionIndexAnnotation] == "0" {
			return 0
		}
		return -1 // the others keep running
	})
	obj := indexedJob("leader", 4, 4)
	obj.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptrTo("0")}}}
	job := h.waitCondition(h.createJob(obj).Name, batchv1.JobComplete)
	if c := condition(job, batchv1.JobSuccessCriteriaMet); c == nil || c.Reason != batchv1.JobReasonSuccessPolicy {
		t.Errorf("SuccessCriteriaMet %+v, want reason SuccessPolicy", c)
	}
	if job.Status.CompletedIndexes != "0" || job.Status.Active != 0 {
		t.Errorf("completedIndexes %q active %d, want \"0\" and the running pods gone", job.Status.CompletedIndexes, job.Status.Active)
	}
}
