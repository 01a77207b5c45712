package resourcequota

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

var podResource = controllers.MustResource("", "pods")

func pod(name, cpu string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}
}

// TestStatusFollowsUsage runs the controller on the real registry: a
// quota's status.used follows pods created, finished and deleted.
func TestStatusFollowsUsage(t *testing.T) {
	env := controllertest.New(t)
	c := New(controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log})
	env.Start()
	env.Go(func(ctx context.Context) { c.Run(ctx, 1) })
	controllertest.MustCreate(env, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "default"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": resource.MustParse("10"),
			"requests.cpu": resource.MustParse("4"), "count/pods": resource.MustParse("10"), "configmaps": resource.MustParse("5")}}})
	waitUsed(env, "pods=0 requests.cpu=0 count/pods=0 configmaps=0")
	controllertest.MustCreate(env, pod("a", "500m"))
	b := controllertest.MustCreate(env, pod("b", "250m"))
	controllertest.MustCreate(env, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default"}})
	waitUsed(env, "pods=2 requests.cpu=750m count/pods=2 configmaps=1")
	b.Status.Phase = corev1.PodSucceeded
	if _, err := env.Client.UpdateStatus(env.Ctx, b); err != nil {
		t.Fatal(err)
	}
	waitUsed(env, "pods=1 requests.cpu=500m count/pods=2 configmaps=1")
	if err := env.Client.Delete(env.Ctx, podResource, "default", "a", controllers.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUsed(env, "pods=0 requests.cpu=0 count/pods=1 configmaps=1")
}

// waitUsed waits for status.used to read want ("name=qty ...", in order)
// and status.hard to mirror spec.hard.
func waitUsed(env *controllertest.Env, want string) {
	env.T.Helper()
	env.Eventually(10*time.Second, func() error {
		q := controllertest.MustGet[*corev1.ResourceQuota](env, quotaResource, "default", "q")
		got := ""
		for _, name := range []corev1.ResourceName{"pods", "requests.cpu", "count/pods", "configmaps"} {
			v, ok := q.Status.Used[name]
			if !ok {
				return fmt.Errorf("status.used has no %s: %v", name, q.Status.Used)
			}
			got += fmt.Sprintf(" %s=%s", name, v.String())
		}
		if got[1:] != want || len(q.Status.Hard) != len(q.Spec.Hard) {
			return fmt.Errorf("used %q hard %v, want %q", got[1:], q.Status.Hard, want)
		}
		return nil
	})
}
