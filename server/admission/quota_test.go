package admission

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func quotaObj(name string, h corev1.ResourceList) *corev1.ResourceQuota {
	return &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.ResourceQuotaSpec{Hard: h}}
}

// TestQuotaRefusesThirdPod: a namespace with pods: 2 refuses the third pod
// with upstream's message, and counts a failed pod no longer.
func TestQuotaRefusesThirdPod(t *testing.T) {
	_, c := newRegistry(t)
	ctx := context.Background()
	mustCreate(t, c, quotaObj("q", hard("pods", "2")))
	mustCreate(t, c, pod("p1"))
	p2 := mustCreate(t, c, pod("p2")).(*corev1.Pod)
	_, err := c.Create(ctx, pod("p3"))
	if !apierrors.IsForbidden(err) {
		t.Fatalf("third pod: %v, want 403", err)
	}
	wantError(t, err, `pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`)
	p2.Status.Phase = corev1.PodFailed
	if _, err := c.UpdateStatus(ctx, p2); err != nil {
		t.Fatalf("fail p2: %v", err)
	}
	mustCreate(t, c, pod("p3")) // a failed pod's compute and pods count are released
}

// TestQuotaCountsRequests sums container requests against requests.cpu.
func TestQuotaCountsRequests(t *testing.T) {
	_, c := newRegistry(t)
	mustCreate(t, c, quotaObj("compute", hard("requests.cpu", "1", "count/configmaps", "1")))
	mustCreate(t, c, pod("a", "requests.cpu", "600m"))
	_, err := c.Create(context.Background(), pod("b", "requests.cpu", "600m"))
	wantError(t, err, `pods "b" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1`)
	mustCreate(t, c, pod("c", "requests.cpu", "400m"))
	mustCreate(t, c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "one", Namespace: "default"}})
	_, err = c.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "two", Namespace: "default"}})
	wantError(t, err, `configmaps "two" is forbidden: exceeded quota: compute, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1`)
}

// TestQuotaRequiresLimits refuses a pod that leaves out what a quota limits.
func TestQuotaRequiresLimits(t *testing.T) {
	_, c := newRegistry(t)
	mustCreate(t, c, quotaObj("q", hard("limits.cpu", "2", "requests.memory", "1Gi")))
	_, err := c.Create(context.Background(), pod("bare"))
	wantError(t, err, `pods "bare" is forbidden: failed quota: q: must specify limits.cpu for: app; requests.memory for: app`)
	mustCreate(t, c, pod("full", "limits.cpu", "1", "requests.memory", "100Mi"))
}

// TestQuotaScopes counts only the pods in a quota's scopes.
func TestQuotaScopes(t *testing.T) {
	_, c := newRegistry(t)
	q := quotaObj("besteffort", hard("pods", "1"))
	q.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}
	mustCreate(t, c, q)
	mustCreate(t, c, pod("be1"))
	mustCreate(t, c, pod("burst", "requests.cpu", "100m")) // not BestEffort: not counted
	if _, err := c.Create(context.Background(), pod("be2")); !apierrors.IsForbidden(err) {
		t.Fatalf("second BestEffort pod: %v, want 403", err)
	}
}

// TestQuotaConcurrentCreates: many creates at once never overshoot.
func TestQuotaConcurrentCreates(t *testing.T) {
	reg, c := newRegistry(t)
	mustCreate(t, c, quotaObj("q", hard("pods", "5")))
	var ok, refused atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Create(context.Background(), pod(fmt.Sprintf("p%d", i)))
			switch {
			case err == nil:
				ok.Add(1)
			case apierrors.IsForbidden(err):
				refused.Add(1)
			default:
				t.Errorf("create: %v", err)
			}
		}()
	}
	wg.Wait()
	l, err := reg.List(context.Background(), podsRes, "default", listAll)
	if err != nil {
		t.Fatal(err)
	}
	if ok.Load() != 5 || refused.Load() != 15 || len(l.Items) != 5 {
		t.Fatalf("got %d admitted, %d refused, %d stored; want 5, 15, 5", ok.Load(), refused.Load(), len(l.Items))
	}
}

// TestQuotaUpdateThatGrows: an update is checked for what it adds (a
// claim resized past requests.storage), not for what it already had.
func TestQuotaUpdateThatGrows(t *testing.T) {
	reg, c := newRegistry(t)
	mustCreate(t, c, quotaObj("q", hard("requests.storage", "10Gi")))
	claims := &api.Resource{Version: "v1", Name: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true}
	claim := func(size string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"},
			Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: hard("storage", size)}}}
	}
	p := NewQuota(reg)
	ctx := context.Background()
	admit := func(now, was string) error {
		rel, err := p.Admit(ctx, &registry.Attributes{Resource: claims, Object: claim(now), Old: claim(was)})
		if rel != nil {
			rel(false)
		}
		return err
	}
	if err := admit("5Gi", "5Gi"); err != nil {
		t.Fatalf("unchanged claim: %v", err)
	}
	wantError(t, admit("20Gi", "5Gi"), `persistentvolumeclaims "data" is forbidden: exceeded quota: q, requested: requests.storage=15Gi, used: requests.storage=0, limited: requests.storage=10Gi`)
	if err := admit("8Gi", "5Gi"); err != nil {
		t.Fatalf("claim grown within the quota: %v", err)
	}
}
