//go:build kubectl

package apiserver

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

const evictP1 = `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p1","namespace":"default"}}`

// TestKubectlDrainHonoursBudget: the eviction API answers upstream's 429
// while a budget allows no disruption, kubectl drain (1.27 and 1.33)
// cordons, retries with that message and waits, and finishes once the
// budget allows the evictions.
func TestKubectlDrainHonoursBudget(t *testing.T) {
	for _, bin := range []string{"/usr/lib/google-cloud-sdk/bin/kubectl.1.27", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"} {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			k := newPolicyEnv(t, bin)
			reg := k.api.Registry()
			mustCreate(t, reg, api.MustLookup("", "v1", "nodes"), "", &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
			for _, name := range []string{"p1", "p2"} {
				runningPod(t, reg, name, "n1")
			}
			setBudget(t, reg, 0)
			out, err := k.run(t, evictP1, "create", "--raw", "/api/v1/namespaces/default/pods/p1/eviction", "-f", "-")
			if err == nil {
				t.Fatalf("eviction under an exhausted budget succeeded:\n%s", out)
			}
			wantContains(t, out, "Cannot evict pod as it would violate the pod's disruption budget.")

			drain := k.start(t, "drain", "n1", "--force", "--timeout=50s")
			drain.waitFor(t, `(will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`)
			if _, err := reg.Get(context.Background(), api.MustLookup("", "v1", "pods"), "default", "p1"); err != nil {
				t.Fatalf("pod p1 gone while the budget forbids its eviction: %v", err)
			}
			wantContains(t, k.ok(t, "", "get", "node", "n1"), "SchedulingDisabled")
			setBudget(t, reg, 2)
			finishDeletions(t, reg) // as n1's agent would, once it stopped the evicted pods
			drain.waitFor(t, "node/n1 drained")
			wantContains(t, k.ok(t, "", "get", "pods"), "No resources found")
			wantContains(t, k.ok(t, "", "get", "pdb", "web", "-o", "jsonpath={.status.disruptionsAllowed}"), "0")
		})
	}
}

func mustCreate(t *testing.T, reg *registry.Registry, res *api.Resource, ns string, obj api.Object) api.Object {
	t.Helper()
	out, err := reg.Create(context.Background(), res, ns, obj, registry.WriteOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", obj.GetName(), err)
	}
	return out
}

// runningPod makes a Ready pod of app=web bound to node, as an agent
// would report it.
func runningPod(t *testing.T, reg *registry.Registry, name, node string) {
	t.Helper()
	pod := mustCreate(t, reg, api.MustLookup("", "v1", "pods"), "default", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}).(*corev1.Pod)
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if _, err := reg.Update(context.Background(), api.MustLookup("", "v1", "pods"), "default", name, "status", pod, false); err != nil {
		t.Fatalf("pod %s status: %v", name, err)
	}
}

// setBudget creates or updates the budget web (minAvailable 2 of app=web)
// with the status the disruption controller would write.
func setBudget(t *testing.T, reg *registry.Registry, allowed int32) {
	t.Helper()
	res := api.MustLookup("policy", "v1", "poddisruptionbudgets")
	o, err := reg.Get(context.Background(), res, "default", "web")
	if err != nil {
		min2 := intstr.FromInt32(2)
		o = mustCreate(t, reg, res, "default", &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &min2, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}})
	}
	pdb := o.(*policyv1.PodDisruptionBudget)
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: allowed,
		CurrentHealthy: 2 + allowed, DesiredHealthy: 2, ExpectedPods: 2 + allowed}
	if _, err := reg.Update(context.Background(), res, "default", "web", "status", pdb, false); err != nil {
		t.Fatalf("budget status: %v", err)
	}
}

// finishDeletions plays the nodes' part in graceful deletion until the
// test ends: every pod being deleted is deleted with grace 0.
func finishDeletions(t *testing.T, reg *registry.Registry) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	pods := api.MustLookup("", "v1", "pods")
	zero := int64(0)
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			list, err := reg.List(ctx, pods, "", registry.ListOptions{})
			for _, o := range listItems(list, err) {
				if o.GetDeletionTimestamp() != nil {
					_, _ = reg.Delete(ctx, pods, o.GetNamespace(), o.GetName(), &registry.DeleteOptions{
						DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: &zero}})
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
}

func listItems(list *registry.List, err error) []api.Object {
	if err != nil {
		return nil
	}
	return list.Items
}
