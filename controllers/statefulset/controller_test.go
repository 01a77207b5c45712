package statefulset

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
	"github.com/bramble-edge/bramble/controllers/gc"
)

func TestOrderedReadyCreatesInOrderWithClaims(t *testing.T) {
	h := start(t)
	var holdWeb1 atomic.Bool
	holdWeb1.Store(true)
	h.runAgent(20*time.Millisecond, func(p *corev1.Pod) bool { return p.Name == "web-1" && holdWeb1.Load() })
	set := controllertest.MustCreate(h.Env, setObject("web", 3))
	h.waitPods(set, "web-0", "web-1")
	time.Sleep(300 * time.Millisecond) // web-2 must not come while web-1 is not Ready
	h.waitPods(set, "web-0", "web-1")
	holdWeb1.Store(false)
	h.waitPods(set, "web-0", "web-1", "web-2")
	h.waitStatus("web", rolledOut(3))
	if got := h.seenOrder(); !slices.Equal(got, []string{"web-0", "web-1", "web-2"}) {
		t.Errorf("pods created in order %v, want web-0, web-1, web-2", got)
	}
	pod := controllertest.MustGet[*corev1.Pod](h.Env, podResource, "default", "web-1")
	checkIdentity(t, set, pod, 1)
	for _, name := range []string{"data-web-0", "data-web-1", "data-web-2"} {
		claim := controllertest.MustGet[*corev1.PersistentVolumeClaim](h.Env, claimResource, "default", name)
		if claim.Labels["app"] != "web" || len(claim.OwnerReferences) != 0 {
			t.Errorf("claim %s labels %v owners %v, want app=web and no owners (Retain)", name, claim.Labels, claim.OwnerReferences)
		}
	}
}

// checkIdentity checks what makes pod the set's pod ord.
func checkIdentity(t *testing.T, set *appsv1.StatefulSet, pod *corev1.Pod, ord int) {
	t.Helper()
	name := fmt.Sprintf("%s-%d", set.Name, ord)
	if pod.Spec.Hostname != name || pod.Spec.Subdomain != set.Spec.ServiceName {
		t.Errorf("hostname %q subdomain %q, want %q and %q", pod.Spec.Hostname, pod.Spec.Subdomain, name, set.Spec.ServiceName)
	}
	if pod.Labels[LabelPodName] != name || pod.Labels[LabelPodIndex] != fmt.Sprint(ord) || pod.Labels[LabelRevision] == "" {
		t.Errorf("labels %v, want pod name %s, index %d and a revision", pod.Labels, name, ord)
	}
	if v := pod.Spec.Volumes; len(v) == 0 || v[0].PersistentVolumeClaim == nil || v[0].PersistentVolumeClaim.ClaimName != "data-"+name {
		t.Errorf("volumes %+v, want data from claim data-%s", v, name)
	}
	if !isControlledBy(pod, set) {
		t.Errorf("owner references %+v, want the StatefulSet as controller", pod.OwnerReferences)
	}
}

func isControlledBy(o api.Object, set *appsv1.StatefulSet) bool {
	for _, r := range o.GetOwnerReferences() {
		if r.UID == set.UID && r.Controller != nil && *r.Controller && r.Kind == "StatefulSet" {
			return true
		}
	}
	return false
}

func TestScaleDownInReverseOrderWithRetentionPolicy(t *testing.T) {
	h := start(t)
	var mu sync.Mutex
	var deleted []string
	h.pods.AddHandler(controllers.Handler{OnDelete: func(o api.Object) {
		mu.Lock()
		defer mu.Unlock()
		deleted = append(deleted, o.GetName())
	}})
	h.runAgent(0, nil)
	obj := setObject("web", 3)
	obj.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
		WhenScaled:  appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
	}
	set := controllertest.MustCreate(h.Env, obj)
	h.waitStatus("web", rolledOut(3))
	claim := controllertest.MustGet[*corev1.PersistentVolumeClaim](h.Env, claimResource, "default", "data-web-2")
	if refs := claim.OwnerReferences; len(refs) != 1 || refs[0].UID != set.UID {
		t.Fatalf("claim data-web-2 owners %+v, want the StatefulSet (whenDeleted: Delete)", refs)
	}
	h.editSet("web", func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr(int32(1)) })
	h.waitPods(set, "web-0")
	h.waitStatus("web", rolledOut(1))
	mu.Lock()
	got := slices.Clone(deleted)
	mu.Unlock()
	if !slices.Equal(got, []string{"web-2", "web-1"}) {
		t.Errorf("pods deleted in order %v, want web-2, web-1", got)
	}
	for _, name := range []string{"data-web-1", "data-web-2"} {
		claim := controllertest.MustGet[*corev1.PersistentVolumeClaim](h.Env, claimResource, "default", name)
		if refs := claim.OwnerReferences; len(refs) != 1 || refs[0].Kind != "Pod" || refs[0].Name != name[len("data-"):] {
			t.Errorf("claim %s owners %+v, want only its pod (whenScaled: Delete)", name, refs)
		}
	}
}

func TestParallelCreatesAllAtOnce(t *testing.T) {
	h := start(t)
	h.runAgent(0, func(*corev1.Pod) bool { return true }) // nothing ever gets Ready
	obj := setObject("web", 4)
	obj.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	set := controllertest.MustCreate(h.Env, obj)
	h.waitPods(set, "web-0", "web-1", "web-2", "web-3")
	h.waitStatus("web", func(s appsv1.StatefulSetStatus, _ int64) error {
		if s.Replicas != 4 || s.ReadyReplicas != 0 {
			return fmt.Errorf("status %+v, want 4 replicas, none ready", s)
		}
		return nil
	})
}

func ptr[T any](v T) *T { return &v }

func TestAdoptsOrphanedPodsAndReleasesMismatched(t *testing.T) {
	h := start(t)
	h.runAgent(0, nil)
	obj := setObject("web", 2)
	orphan := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: *obj.Spec.Template.Spec.DeepCopy()}
	orphan.Spec.Containers[0].VolumeMounts = nil
	controllertest.MustCreate(h.Env, orphan) // left by a set deleted with --cascade=orphan
	set := controllertest.MustCreate(h.Env, obj)
	h.waitPods(set, "web-0", "web-1")
	h.waitStatus("web", rolledOut(2)) // web-0 is adopted, then replaced at the set's revision
	pod := controllertest.MustGet[*corev1.Pod](h.Env, podResource, "default", "web-1")
	cp := pod.DeepCopy()
	cp.Labels["app"] = "other"
	if _, err := h.Client.Update(h.Ctx, cp); err != nil {
		t.Fatal(err)
	}
	h.Eventually(waitFor, func() error {
		got := controllertest.MustGet[*corev1.Pod](h.Env, podResource, "default", "web-1")
		if got.UID == pod.UID && isControlledBy(got, set) {
			return fmt.Errorf("web-1 relabelled is still controlled by the set")
		}
		return nil
	})
}

func TestRetentionDeleteWithGarbageCollector(t *testing.T) {
	h := start(t)
	collector := gc.New(controllers.Deps{Cache: h.Cache, Client: h.Client, Log: h.Log})
	ctx, cancel := context.WithCancel(h.Ctx)
	done := make(chan struct{})
	go func() { defer close(done); collector.Run(ctx, 1) }()
	t.Cleanup(func() { cancel(); <-done })
	h.runAgent(0, nil)
	obj := setObject("web", 3)
	obj.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	obj.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
		WhenScaled:  appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
	}
	controllertest.MustCreate(h.Env, obj)
	h.waitStatus("web", rolledOut(3))
	h.editSet("web", func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr(int32(1)) })
	h.waitClaims("data-web-0")
	if err := h.Client.Delete(h.Ctx, setResource, "default", "web", controllers.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.waitClaims()
}

// waitClaims waits until the namespace's claims are exactly names.
func (h *harness) waitClaims(names ...string) {
	h.T.Helper()
	inf := h.Cache.Informer(claimResource)
	h.Eventually(waitFor, func() error {
		var got []string
		for _, o := range inf.List("default", nil) {
			got = append(got, o.GetName())
		}
		slices.Sort(got)
		if !slices.Equal(got, names) {
			return fmt.Errorf("claims %v, want %v", got, names)
		}
		return nil
	})
}
