package podgc

import (
	"context"
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
	"github.com/bramble-edge/bramble/controllers/job"
)

var jobsRes = controllers.MustResource("batch", "jobs")

// disruptionJob is a one-pod Job allowing no failure, whose pods are bound
// to a Node that does not exist, with the rule action for DisruptionTarget.
func disruptionJob(name string, action batchv1.PodFailurePolicyAction) *batchv1.Job {
	zero := int32(0)
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: batchv1.JobSpec{BackoffLimit: &zero,
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: action,
				OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}}}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, NodeName: "ghost",
				Containers: []corev1.Container{{Name: "work", Image: "registry.local/batch:1"}}}}}}
}

// jobCondition says whether the Job has condition typ True, and its reason.
func jobCondition(j *batchv1.Job, typ batchv1.JobConditionType) (bool, string) {
	for _, c := range j.Status.Conditions {
		if c.Type == typ && c.Status == corev1.ConditionTrue {
			return true, c.Reason
		}
	}
	return false, ""
}

// TestJobIgnoresPodGCDisruption runs the Job controller with the
// collector: a pod removed because its Node is gone carries
// DisruptionTarget, so a Job whose podFailurePolicy Ignores that condition
// does not count it (it replaces it, and backoffLimit 0 is not spent),
// while one whose rule says FailJob fails with reason PodFailurePolicy.
func TestJobIgnoresPodGCDisruption(t *testing.T) {
	env := controllertest.New(t)
	pods := env.Cache.Informer(podsRes)
	deps := controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log}
	jobs := job.New(deps)
	jobs.BackoffBase, jobs.BackoffMax = 50*time.Millisecond, time.Second
	gc := New(deps, Config{Quarantine: 200 * time.Millisecond, Period: 100 * time.Millisecond})
	env.Start()
	env.Go(func(ctx context.Context) { jobs.Run(ctx, 2) })
	env.Go(func(ctx context.Context) { gc.Run(ctx, 1) })
	ignored := controllertest.MustCreate(env, disruptionJob("ignored", batchv1.PodFailurePolicyActionIgnore))
	controllertest.MustCreate(env, disruptionJob("fatal", batchv1.PodFailurePolicyActionFailJob))

	seen := map[types.UID]bool{}
	env.Eventually(waitFor, func() error {
		for _, o := range pods.ByIndex(controllers.IndexOwner, string(ignored.UID)) {
			seen[o.GetUID()] = true
		}
		if len(seen) < 3 {
			return fmt.Errorf("job ignored: %d pods seen, want 3 (two replaced)", len(seen))
		}
		return nil
	})
	j := controllertest.MustGet[*batchv1.Job](env, jobsRes, "default", "ignored")
	if failed, reason := jobCondition(j, batchv1.JobFailed); failed || j.Status.Failed != 0 {
		t.Errorf("job ignored: got failed %d, Failed condition %v (%s); want 0 failed, not Failed", j.Status.Failed, failed, reason)
	}
	env.Eventually(waitFor, func() error {
		j := controllertest.MustGet[*batchv1.Job](env, jobsRes, "default", "fatal")
		if failed, reason := jobCondition(j, batchv1.JobFailed); !failed || reason != batchv1.JobReasonPodFailurePolicy {
			return fmt.Errorf("job fatal: conditions %+v, want Failed True (%s)", j.Status.Conditions, batchv1.JobReasonPodFailurePolicy)
		}
		return nil
	})
}
