package job

import (
	"fmt"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/controllers"
)

// An Indexed Job of 5 completions, 2 at a time, runs each index exactly
// once, names and addresses its pods by index and releases every pod's
// tracking finalizer.
func TestIndexedJobRunsEachIndexOnce(t *testing.T) {
	h := start(t)
	h.runAgent(100*time.Millisecond, always(corev1.PodSucceeded))
	obj := jobObject("sweep", i32(5), i32(2))
	mode := batchv1.IndexedCompletion
	obj.Spec.CompletionMode = &mode
	job := h.createJob(obj)
	peak := h.monitorActive(job)
	job = h.waitCondition("sweep", batchv1.JobComplete)
	if got := peak.stop(); got > 2 {
		t.Errorf("%d pods were active at once, want at most parallelism 2", got)
	}
	if s := job.Status; s.Succeeded != 5 || s.CompletedIndexes != "0-4" || s.UncountedTerminatedPods != nil {
		t.Errorf("status succeeded %d completedIndexes %q uncounted %+v, want 5, \"0-4\", none",
			s.Succeeded, s.CompletedIndexes, s.UncountedTerminatedPods)
	}
	var indexes []string
	h.Eventually(waitFor, func() error {
		indexes = nil
		for _, pod := range h.jobPods(job) {
			if slices.Contains(pod.Finalizers, trackingFinalizer) {
				return fmt.Errorf("pod %s still holds %s", pod.Name, trackingFinalizer)
			}
		}
		return nil
	})
	for _, pod := range h.jobPods(job) {
		i := pod.Annotations[batchv1.JobCompletionIndexAnnotation]
		indexes = append(indexes, i)
		if pod.Spec.Hostname != "sweep-"+i || pod.GenerateName != "sweep-"+i+"-" || pod.Labels[batchv1.JobCompletionIndexAnnotation] != i {
			t.Errorf("pod %s: hostname %q generateName %q labels %v, want sweep-%s", pod.Name, pod.Spec.Hostname, pod.GenerateName, pod.Labels, i)
		}
		env := pod.Spec.Containers[0].Env
		if len(env) != 1 || env[0].Name != "JOB_COMPLETION_INDEX" || env[0].ValueFrom == nil ||
			env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
			t.Errorf("pod %s env %+v, want JOB_COMPLETION_INDEX from the index annotation", pod.Name, env)
		}
	}
	slices.Sort(indexes)
	if want := []string{"0", "1", "2", "3", "4"}; !slices.Equal(indexes, want) {
		t.Errorf("pods ran indexes %v, want %v once each", indexes, want)
	}
}

// A failed pod of an Indexed Job is replaced by a pod of the same index.
func TestIndexedJobRetriesTheFailedIndex(t *testing.T) {
	h := start(t)
	h.runAgent(50*time.Millisecond, func(i int) corev1.PodPhase {
		if i == 0 {
			return corev1.PodFailed
		}
		return corev1.PodSucceeded
	})
	obj := jobObject("retry", i32(3), i32(1))
	mode := batchv1.IndexedCompletion
	obj.Spec.CompletionMode, obj.Spec.BackoffLimit = &mode, i32(2)
	job := h.waitCondition(h.createJob(obj).Name, batchv1.JobComplete)
	if s := job.Status; s.Succeeded != 3 || s.Failed != 1 || s.CompletedIndexes != "0-2" {
		t.Errorf("status succeeded %d failed %d completedIndexes %q, want 3, 1, \"0-2\"", s.Succeeded, s.Failed, s.CompletedIndexes)
	}
	zeros := 0
	for _, pod := range h.jobPods(job) {
		if pod.Annotations[batchv1.JobCompletionIndexAnnotation] == "0" {
			zeros++
		}
	}
	if zeros != 2 {
		t.Errorf("%d pods of index 0, want 2 (the failed one and its replacement)", zeros)
	}
}

func TestIndexSetRoundTrip(t *testing.T) {
	for in, want := range map[string]string{"": "", "0-4": "0-4", "3,1,2,7": "1-3,7", "0,2-3,9,x,5-": "0,2-3", "-3,1": "1"} {
		if got := parseIndexes(in, 8).String(); got != want {
			t.Errorf("parseIndexes(%q, 8) = %q, want %q", in, got, want)
		}
	}
}

// A pod deleted the moment it succeeds (as pod garbage collection or a
// node's removal would) still counts: its tracking finalizer keeps it
// until the Job has recorded it, so no index runs twice.
func TestDeletedSucceededPodStillCounts(t *testing.T) {
	h := start(t)
	obj := jobObject("gc", i32(3), i32(3))
	mode := batchv1.IndexedCompletion
	obj.Spec.CompletionMode = &mode
	job := h.createJob(obj)
	seen := map[string]bool{}
	h.Eventually(waitFor, func() error {
		for _, pod := range h.jobPods(job) {
			if seen[pod.Name] || pod.DeletionTimestamp != nil {
				continue
			}
			seen[pod.Name] = true
			h.setPhase(h.Ctx, pod, corev1.PodSucceeded)
			if err := h.Client.Delete(h.Ctx, podResource, pod.Namespace, pod.Name, controllers.DeleteOptions{}); err != nil {
				t.Fatalf("delete pod %s: %v", pod.Name, err)
			}
		}
		if j := h.getJob("gc"); !finished(j) {
			return fmt.Errorf("job status %+v, want it complete", j.Status)
		}
		return nil
	})
	if j := h.getJob("gc"); j.Status.Succeeded != 3 || len(seen) != 3 {
		t.Errorf("succeeded %d with %d pods created, want 3 and 3 (no index run twice)", j.Status.Succeeded, len(seen))
	}
}
