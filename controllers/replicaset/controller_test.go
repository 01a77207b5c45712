package replicaset

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
)

func TestCreatesOwnedPodsAndScales(t *testing.T) {
	h := start(t, nil)
	rs := h.createRS("web", 3, 0)
	got := h.waitOwned(rs, 3)
	for _, p := range got {
		checkCreatedPod(t, rs, p)
	}
	h.Eventually(waitFor, func() error { return h.hasEvent(rs, "SuccessfulCreate", "Created pod: "+got[0].Name) })

	h.scale("web", 5)
	h.waitOwned(rs, 5)
	h.scale("web", 1)
	kept := h.waitOwned(rs, 1)[0]
	gone := slices.DeleteFunc(slices.Clone(got), func(p *corev1.Pod) bool { return p.Name == kept.Name })
	h.Eventually(waitFor, func() error { return h.hasEvent(rs, "SuccessfulDelete", "Deleted pod: "+gone[0].Name) })
	h.waitStatus("web", func(st appsv1.ReplicaSetStatus) error {
		if st.Replicas != 1 || st.FullyLabeledReplicas != 1 || st.ObservedGeneration != 3 {
			return fmt.Errorf("status replicas/fullyLabeled/observedGeneration = %d/%d/%d, want 1/1/3",
				st.Replicas, st.FullyLabeledReplicas, st.ObservedGeneration)
		}
		return nil
	})
}

func checkCreatedPod(t *testing.T, rs *appsv1.ReplicaSet, p *corev1.Pod) {
	t.Helper()
	if !strings.HasPrefix(p.Name, "web-") || p.GenerateName != "web-" {
		t.Errorf("pod name %q generateName %q, want generateName web-", p.Name, p.GenerateName)
	}
	if p.Labels["app"] != "web" || p.Labels["tier"] != "web" {
		t.Errorf("pod labels %v, want the template's", p.Labels)
	}
	want := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: rs.UID,
		Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
	if len(p.OwnerReferences) != 1 || !equalRef(p.OwnerReferences[0], want) {
		t.Errorf("pod ownerReferences %+v, want [%+v]", p.OwnerReferences, want)
	}
}

func ptr[T any](v T) *T { return &v }

func equalRef(a, b metav1.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		*a.Controller == *b.Controller && *a.BlockOwnerDeletion == *b.BlockOwnerDeletion
}

func TestReplacesDeletedPod(t *testing.T) {
	h := start(t, nil)
	rs := h.createRS("web", 2, 0)
	before := h.waitOwned(rs, 2)
	victim := before[0]
	if err := h.Client.Delete(h.Ctx, pods, "default", victim.Name, controllers.DeleteOptions{}); err != nil {
		t.Fatalf("delete pod %s: %v", victim.Name, err)
	}
	h.Eventually(waitFor, func() error {
		now := h.owned(rs)
		if len(now) != 2 || slices.ContainsFunc(now, func(p *corev1.Pod) bool { return p.Name == victim.Name }) {
			return fmt.Errorf("owned pods %v, want 2 without %s", names(now), victim.Name)
		}
		return nil
	})
}

func names(ps []*corev1.Pod) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func TestAdoptsMatchingOrphan(t *testing.T) {
	h := start(t, nil)
	orphan := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "stray", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1"}}},
	}
	if _, err := h.Client.Create(h.Ctx, orphan); err != nil {
		t.Fatalf("create orphan pod: %v", err)
	}
	rs := h.createRS("web", 2, 0)
	got := h.waitOwned(rs, 2)
	if !slices.Contains(names(got), "stray") {
		t.Fatalf("owned pods %v, want the orphan stray among them", names(got))
	}
	h.waitStatus("web", func(st appsv1.ReplicaSetStatus) error {
		if st.Replicas != 2 || st.FullyLabeledReplicas != 1 {
			return fmt.Errorf("status replicas/fullyLabeled = %d/%d, want 2/1 (stray lacks tier)", st.Replicas, st.FullyLabeledReplicas)
		}
		return nil
	})
}

func TestReleasesRelabeledPodAndReplacesIt(t *testing.T) {
	h := start(t, nil)
	rs := h.createRS("web", 2, 0)
	p := h.waitOwned(rs, 2)[0].DeepCopy()
	p.Labels["app"] = "debug"
	if _, err := h.Client.Update(h.Ctx, p); err != nil {
		t.Fatalf("relabel pod %s: %v", p.Name, err)
	}
	h.Eventually(waitFor, func() error {
		if now := names(h.owned(rs)); len(now) != 2 || slices.Contains(now, p.Name) {
			return fmt.Errorf("owned pods %v, want 2 without relabeled %s", now, p.Name)
		}
		return nil
	})
	h.Eventually(waitFor, func() error {
		obj, err := h.Client.Get(h.Ctx, pods, "default", p.Name)
		if err != nil {
			return fmt.Errorf("get released pod: %w", err)
		}
		if refs := obj.GetOwnerReferences(); len(refs) != 0 {
			return fmt.Errorf("released pod ownerReferences %+v, want none", refs)
		}
		return nil
	})
}

func TestDeletingReplicaSetIsLeftToTheGarbageCollector(t *testing.T) {
	h := start(t, nil)
	obj := rsObject("web", 2, 0)
	obj.Finalizers = []string{"example.com/hold"}
	out, err := h.Client.Create(h.Ctx, obj)
	if err != nil {
		t.Fatalf("create replicaset: %v", err)
	}
	rs := out.(*appsv1.ReplicaSet)
	victim := h.waitOwned(rs, 2)[0]
	if err := h.Client.Delete(h.Ctx, replicaSets, "default", "web", controllers.DeleteOptions{}); err != nil {
		t.Fatalf("delete replicaset: %v", err)
	}
	if err := h.Client.Delete(h.Ctx, pods, "default", victim.Name, controllers.DeleteOptions{}); err != nil {
		t.Fatalf("delete pod: %v", err)
	}
	// Status is still kept; once it says 1, the sync that saw the pod go
	// has decided not to replace it.
	h.waitStatus("web", func(st appsv1.ReplicaSetStatus) error {
		if st.Replicas != 1 {
			return fmt.Errorf("status.replicas %d, want 1", st.Replicas)
		}
		return nil
	})
	if n := len(h.owned(rs)); n != 1 {
		t.Fatalf("a deleting replicaset has %d pods, want 1 (no replacement)", n)
	}
}
