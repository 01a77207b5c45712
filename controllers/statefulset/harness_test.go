package statefulset

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

const waitFor = 20 * time.Second

// harness is a StatefulSet controller on the real store and admission
// path, with a simulated agent that runs pods and removes deleted ones.
type harness struct {
	*controllertest.Env
	ctrl *Controller
	pods *controllers.Informer

	mu    sync.Mutex
	order []string // pod names in the order the agent first saw them
}

func start(t testing.TB) *harness {
	t.Helper()
	env := controllertest.New(t)
	h := &harness{Env: env, pods: env.Cache.Informer(podResource)}
	h.ctrl = New(controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log})
	env.Start()
	env.Go(func(ctx context.Context) { h.ctrl.Run(ctx, 2) })
	return h
}

// runAgent plays the node agent: a pending pod becomes Running and Ready
// once seen for readyAfter, unless hold says to keep it pending.
func (h *harness) runAgent(readyAfter time.Duration, hold func(*corev1.Pod) bool) {
	h.Go(func(ctx context.Context) {
		seen := map[types.UID]time.Time{}
		for ctx.Err() == nil {
			for _, o := range h.pods.List("", nil) {
				h.tend(ctx, o.(*corev1.Pod), seen, readyAfter, hold)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func (h *harness) tend(ctx context.Context, pod *corev1.Pod, seen map[types.UID]time.Time, readyAfter time.Duration, hold func(*corev1.Pod) bool) {
	first, ok := seen[pod.UID]
	if !ok {
		seen[pod.UID] = time.Now()
		h.mu.Lock()
		h.order = append(h.order, pod.Name)
		h.mu.Unlock()
		return
	}
	if pod.DeletionTimestamp != nil {
		err := h.Client.Delete(ctx, podResource, pod.Namespace, pod.Name, controllers.DeleteOptions{UID: string(pod.UID)})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) && ctx.Err() == nil {
			h.T.Errorf("finish deleting pod %s: %v", pod.Name, err)
		}
		return
	}
	if pod.Status.Phase == corev1.PodPending && time.Since(first) >= readyAfter && (hold == nil || !hold(pod)) {
		h.setReady(ctx, pod)
	}
}

// setReady writes the pod Running and Ready as an agent would.
func (h *harness) setReady(ctx context.Context, pod *corev1.Pod) {
	cp := pod.DeepCopy()
	cp.Status.Phase = corev1.PodRunning
	cp.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
	_, err := h.Client.UpdateStatus(ctx, cp)
	if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		h.T.Errorf("update status of pod %s: %v", pod.Name, err)
	}
}

// seenOrder is the order the agent first saw pods in.
func (h *harness) seenOrder() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.order...)
}

func setObject(name string, replicas int32) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.StatefulSetSpec{
			Replicas: &replicas, ServiceName: name,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "registry.local/db:1",
					VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}}},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}},
		},
	}
}

func (h *harness) getSet(name string) *appsv1.StatefulSet {
	h.T.Helper()
	return controllertest.MustGet[*appsv1.StatefulSet](h.Env, setResource, "default", name)
}

// editSet applies change to the stored set, retrying on conflicts.
func (h *harness) editSet(name string, change func(*appsv1.StatefulSet)) {
	h.T.Helper()
	controllertest.Edit(h.Env, setResource, "default", name, change)
}

// livePods is the set's pods in the cache that are not terminating, by
// name, with their revision label.
func (h *harness) livePods(set *appsv1.StatefulSet) map[string]string {
	out := map[string]string{}
	for _, o := range h.pods.ByIndex(controllers.IndexOwner, string(set.UID)) {
		if o.GetDeletionTimestamp() == nil {
			out[o.GetName()] = o.GetLabels()[LabelRevision]
		}
	}
	return out
}

// waitPods waits until the set's live pods are exactly names.
func (h *harness) waitPods(set *appsv1.StatefulSet, names ...string) map[string]string {
	h.T.Helper()
	var got map[string]string
	h.Eventually(waitFor, func() error {
		got = h.livePods(set)
		have := make([]string, 0, len(got))
		for n := range got {
			have = append(have, n)
		}
		sort.Strings(have)
		if fmt.Sprint(have) != fmt.Sprint(names) {
			return fmt.Errorf("pods %v, want %v", have, names)
		}
		return nil
	})
	return got
}

// waitStatus waits until check accepts the stored status.
func (h *harness) waitStatus(name string, check func(s appsv1.StatefulSetStatus, gen int64) error) {
	h.T.Helper()
	h.Eventually(waitFor, func() error {
		set := h.getSet(name)
		return check(set.Status, set.Generation)
	})
}

// rolledOut accepts a status with want pods, all Ready and at one revision.
func rolledOut(want int32) func(appsv1.StatefulSetStatus, int64) error {
	return func(s appsv1.StatefulSetStatus, gen int64) error {
		if s.ObservedGeneration < gen || s.Replicas != want || s.ReadyReplicas != want || s.AvailableReplicas != want ||
			s.UpdatedReplicas != want || s.CurrentReplicas != want || s.CurrentRevision != s.UpdateRevision {
			return fmt.Errorf("status %+v (generation %d), want %d replicas ready and at one revision", s, gen, want)
		}
		return nil
	}
}
