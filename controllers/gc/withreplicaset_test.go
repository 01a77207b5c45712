package gc

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
	"github.com/bramble-edge/bramble/controllers/replicaset"
)

// The collector next to the real ReplicaSet controller: the pods it makes
// go with their ReplicaSet under each policy, and the controller does not
// replace them while the ReplicaSet waits in Foreground.
func TestWithReplicaSetController(t *testing.T) {
	env := controllertest.New(t)
	h := &harness{Env: env, gc: New(controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log})}
	rsc := replicaset.New(controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log})
	pods := env.Cache.Informer(podsRes)
	env.Start()
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan struct{}, 2)
	go func() { h.gc.Run(ctx, 2); done <- struct{}{} }()
	go func() { rsc.Run(ctx, 2); done <- struct{}{} }()
	t.Cleanup(func() { cancel(); <-done; <-done })

	for _, policy := range []metav1.DeletionPropagation{metav1.DeletePropagationBackground,
		metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan} {
		name := map[metav1.DeletionPropagation]string{metav1.DeletePropagationBackground: "bg",
			metav1.DeletePropagationForeground: "fg", metav1.DeletePropagationOrphan: "or"}[policy]
		h.createScaledRS(name, 3)
		sel := labels.SelectorFromSet(labels.Set{"app": name})
		count := func() int { return len(pods.List("default", sel)) }
		h.Eventually(waitFor, func() error {
			if n := count(); n != 3 {
				return fmt.Errorf("%s: %d pods, want 3", name, n)
			}
			return nil
		})
		h.delete(replicaSetsRes, "default", name, policy)
		h.waitGone(replicaSetsRes, "default", name)
		want := map[metav1.DeletionPropagation]int{metav1.DeletePropagationOrphan: 3}[policy]
		h.Eventually(waitFor, func() error {
			if n := count(); n != want {
				return fmt.Errorf("%s (%s): %d pods left, want %d", name, policy, n, want)
			}
			for _, p := range pods.List("default", sel) {
				if refs := p.(*corev1.Pod).OwnerReferences; len(refs) != 0 {
					return fmt.Errorf("orphaned pod %s still has ownerReferences %v", p.GetName(), refs)
				}
			}
			return nil
		})
	}
}
