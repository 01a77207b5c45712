package gc

import (
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

const hold = "example.com/hold"

func TestBackgroundDeletesDependentsOfDeletedOwner(t *testing.T) {
	h := start(t, true)
	rs := h.createRS("web")
	for i := range 3 {
		h.createPod(fmt.Sprintf("web-%d", i), nil, ownerRef(replicaSetsRes, rs, true))
	}
	other := h.createRS("other")
	h.createPod("other-0", nil, ownerRef(replicaSetsRes, other, true))

	h.delete(replicaSetsRes, "default", "web", metav1.DeletePropagationBackground)
	h.waitGone(podsRes, "default", "web-0", "web-1", "web-2")
	h.mustGet(podsRes, "default", "other-0")
}

func TestForegroundDeletesDependentsThenOwner(t *testing.T) {
	h := start(t, true)
	rs := h.createRS("web")
	h.createPod("web-0", nil, ownerRef(replicaSetsRes, rs, true))
	h.createPod("web-1", nil, ownerRef(replicaSetsRes, rs, true))
	h.createPod("web-held", []string{hold}, ownerRef(replicaSetsRes, rs, true))

	h.delete(replicaSetsRes, "default", "web", metav1.DeletePropagationForeground)
	h.waitGone(podsRes, "default", "web-0", "web-1")
	// The held pod is being deleted but still there: the owner waits.
	h.Eventually(waitFor, func() error {
		if p := h.mustGet(podsRes, "default", "web-held"); p.GetDeletionTimestamp() == nil {
			return fmt.Errorf("pod web-held has no deletionTimestamp yet")
		}
		return nil
	})
	time.Sleep(200 * time.Millisecond)
	owner := h.mustGet(replicaSetsRes, "default", "web")
	if got := owner.GetFinalizers(); !slices.Equal(got, []string{FinalizerForeground}) || owner.GetDeletionTimestamp() == nil {
		t.Fatalf("got finalizers %q deletionTimestamp %v, want [foregroundDeletion] and a timestamp while a dependent remains",
			got, owner.GetDeletionTimestamp())
	}
	h.removeFinalizers(podsRes, "default", "web-held")
	h.waitGone(podsRes, "default", "web-held")
	h.waitGone(replicaSetsRes, "default", "web")
}

func TestForegroundCascadesThroughLevels(t *testing.T) {
	h := start(t, true)
	one := int32(1)
	sel := map[string]string{"app": "d"}
	d := h.create(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}})
	rs := h.createRS("d-1")
	rsCopy := rs.DeepCopy()
	rsCopy.OwnerReferences = []metav1.OwnerReference{ownerRef(deploymentsRes, d, true)}
	if _, err := h.Client.Update(h.Ctx, rsCopy); err != nil {
		t.Fatalf("own replicaset: %v", err)
	}
	h.createPod("d-1-a", nil, ownerRef(replicaSetsRes, rs, true))
	h.createPod("d-1-b", []string{hold}, ownerRef(replicaSetsRes, rs, true))

	h.delete(deploymentsRes, "default", "d", metav1.DeletePropagationForeground)
	h.waitGone(podsRes, "default", "d-1-a")
	h.Eventually(waitFor, func() error {
		if got := h.mustGet(replicaSetsRes, "default", "d-1").GetFinalizers(); !slices.Contains(got, FinalizerForeground) {
			return fmt.Errorf("replicaset finalizers %q, want foregroundDeletion (it has dependents)", got)
		}
		return nil
	})
	h.mustGet(deploymentsRes, "default", "d")
	h.removeFinalizers(podsRes, "default", "d-1-b")
	h.waitGone(replicaSetsRes, "default", "d-1")
	h.waitGone(deploymentsRes, "default", "d")
}

func TestOrphanRemovesOwnerReferences(t *testing.T) {
	h := start(t, true)
	rs := h.createRS("web")
	keeper := h.createCM("default", "keeper")
	h.createPod("web-0", nil, ownerRef(replicaSetsRes, rs, true))
	h.createPod("web-1", nil, ownerRef(replicaSetsRes, rs, true), ownerRef(configMapsRes, keeper, false))

	h.delete(replicaSetsRes, "default", "web", metav1.DeletePropagationOrphan)
	h.waitGone(replicaSetsRes, "default", "web")
	if refs := h.mustGet(podsRes, "default", "web-0").GetOwnerReferences(); len(refs) != 0 {
		t.Fatalf("web-0: got ownerReferences %v, want none", refs)
	}
	refs := h.mustGet(podsRes, "default", "web-1").GetOwnerReferences()
	if len(refs) != 1 || refs[0].UID != keeper.UID {
		t.Fatalf("web-1: got ownerReferences %v, want only the configmap keeper", refs)
	}
	time.Sleep(200 * time.Millisecond)
	h.mustGet(podsRes, "default", "web-0")
	h.mustGet(podsRes, "default", "web-1")
}

func TestOwnerWithAnotherUIDOrNamespaceCountsAsGone(t *testing.T) {
	h := start(t, true)
	if _, err := h.Client.Create(h.Ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere"}}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	here := h.createCM("default", "owner")
	there := h.createCM("elsewhere", "far")
	stale := ownerRef(configMapsRes, here, false)
	stale.UID = types.UID("00000000-0000-0000-0000-000000000001")
	h.createCM("default", "stale-dep", stale)
	h.createCM("default", "cross-ns-dep", ownerRef(configMapsRes, there, false))
	h.createCM("default", "live-dep", ownerRef(configMapsRes, here, false))
	// One owner present, one gone: the dependent stays, the bad reference goes.
	h.createCM("default", "mixed-dep", ownerRef(configMapsRes, here, false), stale)

	h.waitGone(configMapsRes, "default", "stale-dep", "cross-ns-dep")
	h.Eventually(waitFor, func() error {
		if refs := h.mustGet(configMapsRes, "default", "mixed-dep").GetOwnerReferences(); len(refs) != 1 || refs[0].UID != here.UID {
			return fmt.Errorf("mixed-dep ownerReferences %v, want only the live owner", refs)
		}
		return nil
	})
	h.mustGet(configMapsRes, "default", "live-dep")
}

func TestClusterScopedOwner(t *testing.T) {
	h := start(t, true)
	node := h.create(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "pi-1"}})
	h.createPod("on-pi", nil, ownerRef(nodesRes, node, false))
	time.Sleep(200 * time.Millisecond)
	h.mustGet(podsRes, "default", "on-pi")
	h.delete(nodesRes, "", "pi-1", metav1.DeletePropagationBackground)
	h.waitGone(podsRes, "default", "on-pi")
}

// A dependent created right after its owner may reach the cache first (the
// owner is a Secret, the dependent a ConfigMap: two informers, two
// watches); the collector must read the owner fresh rather than trust it.
func TestLiveOwnerNeverLosesDependentsUnderLag(t *testing.T) {
	h := start(t, true)
	const n = 60
	for i := range n {
		owner := h.create(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("owner-%d", i), Namespace: "default"}})
		h.createCM("default", fmt.Sprintf("dep-%d", i), ownerRef(secretsRes, owner, true))
	}
	// A control the collector must delete; it was queued after every
	// dependent above.
	ghost := metav1.OwnerReference{APIVersion: "v1", Kind: "Secret", Name: "ghost", UID: "00000000-0000-0000-0000-00000000beef"}
	h.createCM("default", "control", ghost)
	h.waitGone(configMapsRes, "default", "control")
	time.Sleep(100 * time.Millisecond)
	for i := range n {
		h.mustGet(configMapsRes, "default", fmt.Sprintf("dep-%d", i))
	}
}

// The same with the lag made certain: the collector's cache is never
// started, so it holds no owner at all.
func TestCollectConfirmsAbsentOwnerWithFreshRead(t *testing.T) {
	h := start(t, false)
	owner := h.createCM("default", "owner")
	dep := h.createCM("default", "dep", ownerRef(configMapsRes, owner, true))
	if err := h.gc.collect(h.Ctx, configMapsRes, dep); err != nil {
		t.Fatalf("collect: %v", err)
	}
	h.mustGet(configMapsRes, "default", "dep")

	h.delete(configMapsRes, "default", "owner", metav1.DeletePropagationBackground)
	if err := h.gc.collect(h.Ctx, configMapsRes, dep); err != nil {
		t.Fatalf("collect: %v", err)
	}
	if err := h.goneErr(configMapsRes, "default", "dep"); err != nil {
		t.Fatalf("got %v, want the dependent of a deleted owner deleted", err)
	}
}

func TestOwnerOfUnservedKindIsNeverGone(t *testing.T) {
	h := start(t, true)
	ref := metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "00000000-0000-0000-0000-0000000000aa"}
	h.createCM("default", "widget-dep", ref)
	ghost := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "ghost", UID: "00000000-0000-0000-0000-00000000beef"}
	h.createCM("default", "control", ghost)
	h.waitGone(configMapsRes, "default", "control")
	h.mustGet(configMapsRes, "default", "widget-dep")
}

func TestNamespaceOwnerForeground(t *testing.T) {
	h := start(t, true)
	ns := h.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})
	h.createCM("default", "ns-dep", ownerRef(namespacesRes, ns, true))
	h.createCM("team", "inside")
	h.delete(namespacesRes, "", "team", metav1.DeletePropagationForeground)
	h.waitGone(configMapsRes, "default", "ns-dep")
	h.waitGone(namespacesRes, "", "team")
}
