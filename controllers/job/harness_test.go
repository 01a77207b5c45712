package job

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

const waitFor = 20 * time.Second

var eventResource = controllers.MustResource("", "events")

// harness is a Job controller on the real store and admission path, with
// a simulated agent that runs the Job's pods.
type harness struct {
	*controllertest.Env
	ctrl   *Controller
	pods   *controllers.Informer
	events *controllers.Informer
}

func start(t testing.TB) *harness {
	t.Helper()
	env := controllertest.New(t)
	h := &harness{Env: env, pods: env.Cache.Informer(podResource), events: env.Cache.Informer(eventResource)}
	h.ctrl = New(controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log})
	h.ctrl.BackoffBase, h.ctrl.BackoffMax = 50*time.Millisecond, time.Second
	env.Start()
	env.Go(func(ctx context.Context) { h.ctrl.Run(ctx, 2) })
	return h
}

// runAgent runs pods: each becomes Running and Ready when first seen, then
// after runFor ends in outcome(i), i counting pods in the order seen; an
// empty outcome keeps it running.
func (h *harness) runAgent(runFor time.Duration, outcome func(i int) corev1.PodPhase) {
	h.Go(func(ctx context.Context) {
		order := map[types.UID]int{}
		started := map[types.UID]time.Time{}
		for ctx.Err() == nil {
			for _, o := range h.pods.List("", nil) {
				pod := o.(*corev1.Pod)
				if _, ok := order[pod.UID]; !ok {
					order[pod.UID] = len(order)
				}
				switch pod.Status.Phase {
				case corev1.PodPending:
					started[pod.UID] = time.Now()
					h.setPhase(ctx, pod, corev1.PodRunning)
				case corev1.PodRunning:
					if end := outcome(order[pod.UID]); end != "" && time.Since(started[pod.UID]) >= runFor {
						h.setPhase(ctx, pod, end)
					}
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// setPhase writes a pod's phase and Ready condition as an agent would; a
// conflict or a vanished pod is left for the next round.
func (h *harness) setPhase(ctx context.Context, pod *corev1.Pod, phase corev1.PodPhase) {
	cp := pod.DeepCopy()
	cp.Status.Phase = phase
	ready := corev1.ConditionFalse
	if phase == corev1.PodRunning {
		ready = corev1.ConditionTrue
	}
	cp.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: ready, LastTransitionTime: metav1.Now()}}
	_, err := h.Client.UpdateStatus(ctx, cp)
	if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		h.T.Errorf("update status of pod %s: %v", pod.Name, err)
	}
}

func always(p corev1.PodPhase) func(int) corev1.PodPhase {
	return func(int) corev1.PodPhase { return p }
}

func jobObject(name string, completions, parallelism *int32) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: batchv1.JobSpec{Completions: completions, Parallelism: parallelism,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "work", Image: "registry.local/batch:1"}}}}},
	}
}

func (h *harness) createJob(job *batchv1.Job) *batchv1.Job {
	h.T.Helper()
	return controllertest.MustCreate(h.Env, job)
}

func (h *harness) getJob(name string) *batchv1.Job {
	h.T.Helper()
	return controllertest.MustGet[*batchv1.Job](h.Env, jobResource, "default", name)
}

// waitCondition waits until the Job has condition typ true, matched as
// `kubectl wait --for=condition=...` does (case-insensitively), and
// returns the Job.
func (h *harness) waitCondition(name string, typ batchv1.JobConditionType) *batchv1.Job {
	h.T.Helper()
	var job *batchv1.Job
	h.Eventually(waitFor, func() error {
		job = h.getJob(name)
		for _, c := range job.Status.Conditions {
			if strings.EqualFold(string(c.Type), string(typ)) && strings.EqualFold(string(c.Status), "true") {
				return nil
			}
		}
		return fmt.Errorf("job %s conditions %+v, want %s True", name, job.Status.Conditions, typ)
	})
	return job
}

func (h *harness) jobPods(job *batchv1.Job) []*corev1.Pod {
	var out []*corev1.Pod
	for _, o := range h.pods.ByIndex(controllers.IndexOwner, string(job.UID)) {
		out = append(out, o.(*corev1.Pod))
	}
	return out
}

func (h *harness) waitEvent(obj metav1.Object, reason string) {
	h.T.Helper()
	h.Eventually(waitFor, func() error {
		for _, o := range h.events.List(obj.GetNamespace(), nil) {
			ev := o.(*corev1.Event)
			if ev.InvolvedObject.UID == obj.GetUID() && ev.Reason == reason && ev.Source.Component == Component {
				return nil
			}
		}
		return fmt.Errorf("no %s event from %s for %s", reason, Component, obj.GetName())
	})
}

func condition(job *batchv1.Job, typ batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		if job.Status.Conditions[i].Type == typ {
			return &job.Status.Conditions[i]
		}
	}
	return nil
}

func i32(v int32) *int32 { return &v }
