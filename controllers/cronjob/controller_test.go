package cronjob

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/clock/clocktest"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
	"github.com/bramble-edge/bramble/server/registry"
)

// fakeClock is the controller's now, set by the test (forward or back).
type fakeClock struct{ *clocktest.Fake }

func (f fakeClock) Set(t time.Time) { f.Advance(t.Sub(f.Now())) }

// harness runs the controller's Sync by hand (no workers) on the real
// store and admission path, at times the test sets.
type harness struct {
	*controllertest.Env
	ctrl  *Controller
	clock fakeClock
}

func start(t *testing.T) *harness {
	env := controllertest.New(t)
	h := &harness{Env: env, clock: fakeClock{clocktest.NewFake(time.Now())}}
	h.ctrl = New(controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log, Now: h.clock.Now})
	env.Start()
	return h
}

func (h *harness) cronJob(name string, change func(*batchv1.CronJob)) *batchv1.CronJob {
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *", JobTemplate: batchv1.JobTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}},
	}
	if change != nil {
		change(cj)
	}
	return controllertest.MustCreate(h.Env, cj)
}

// syncAt runs one Sync at time now once the cache holds the CronJob's
// latest version, and returns the CronJob and its Jobs as stored after it.
func (h *harness) syncAt(cj *batchv1.CronJob, now time.Time) (*batchv1.CronJob, []*batchv1.Job) {
	h.T.Helper()
	h.clock.Set(now)
	h.waitCached(cj)
	if err := h.ctrl.Sync(context.Background(), controllers.KeyOf(cj)); err != nil {
		h.T.Fatalf("sync at %s: %v", now, err)
	}
	cur := controllertest.MustGet[*batchv1.CronJob](h.Env, cronJobResource, cj.Namespace, cj.Name)
	h.waitCached(cur)
	var jobs []*batchv1.Job
	h.Eventually(5*time.Second, func() error {
		jobs = h.ctrl.ownedJobs(cur)
		list, err := h.Registry.List(context.Background(), jobResource, cj.Namespace, registry.ListOptions{})
		stored := 0
		for _, o := range list.Items {
			if ref := metav1.GetControllerOf(o); ref != nil && ref.UID == cj.UID {
				stored++
			}
		}
		if err != nil || stored != len(jobs) {
			return fmt.Errorf("cache shows %d jobs, store %d (%v)", len(jobs), stored, err)
		}
		return nil
	})
	return cur, jobs
}

// waitCached waits until the cache has obj's resourceVersion or later.
func (h *harness) waitCached(obj api.Object) {
	h.Eventually(5*time.Second, func() error {
		o, ok := h.ctrl.cjInf.Get(obj.GetNamespace(), obj.GetName())
		if !ok || rv(o) < rv(obj) {
			return fmt.Errorf("cache lacks %s at %s", obj.GetName(), obj.GetResourceVersion())
		}
		return nil
	})
}

func rv(o api.Object) int64 {
	n, _ := strconv.ParseInt(o.GetResourceVersion(), 10, 64)
	return n
}

// finish marks a Job complete (ok) or failed at t, as the Job controller would.
func (h *harness) finish(j *batchv1.Job, ok bool, t time.Time) {
	cp := controllertest.MustGet[*batchv1.Job](h.Env, jobResource, j.Namespace, j.Name)
	typ := batchv1.JobFailed
	if ok {
		typ = batchv1.JobComplete
		cp.Status.Conditions = append(cp.Status.Conditions, batchv1.JobCondition{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue})
		cp.Status.Succeeded = 1
		cp.Status.CompletionTime = &metav1.Time{Time: t}
	} else {
		cp.Status.Conditions = append(cp.Status.Conditions, batchv1.JobCondition{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue})
		cp.Status.Failed = 1
	}
	cp.Status.StartTime = &metav1.Time{Time: t.Add(-time.Second)}
	cp.Status.Conditions = append(cp.Status.Conditions, batchv1.JobCondition{Type: typ, Status: corev1.ConditionTrue})
	done, err := h.Client.UpdateStatus(context.Background(), cp)
	if err != nil {
		h.T.Fatalf("finish %s: %v", j.Name, err)
	}
	h.Eventually(5*time.Second, func() error {
		if o, ok := h.ctrl.jobInf.Get(j.Namespace, j.Name); !ok || rv(o) < rv(done) {
			return fmt.Errorf("cache lacks job %s at %s", j.Name, done.GetResourceVersion())
		}
		return nil
	})
}
