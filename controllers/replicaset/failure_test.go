package replicaset

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// refusingClient is the real client with pod creation refused while
// refuse is set, as an exhausted quota or a failing admission would.
type refusingClient struct {
	controllers.Client
	refuse atomic.Bool
}

func (c *refusingClient) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if _, ok := obj.(*corev1.Pod); ok && c.refuse.Load() {
		return nil, apierrors.NewForbidden(pods.GroupResource(), obj.GetName(), errors.New("exceeded quota: pods"))
	}
	return c.Client.Create(ctx, obj)
}

func TestFailedCreatesSetReplicaFailureUntilTheyWork(t *testing.T) {
	rc := &refusingClient{}
	rc.refuse.Store(true)
	h := start(t, func(h *harness) {
		rc.Client = h.Client
		h.client = rc
	})
	rs := h.createRS("web", 4, 0)
	h.waitStatus("web", func(st appsv1.ReplicaSetStatus) error {
		c := failureCondition(st)
		if c == nil || c.Reason != "FailedCreate" || !strings.Contains(c.Message, "exceeded quota") {
			return fmt.Errorf("ReplicaFailure condition %+v, want reason FailedCreate with the error", c)
		}
		return nil
	})
	h.Eventually(waitFor, func() error {
		return h.hasEvent(rs, "FailedCreate", "Error creating: pods is forbidden: exceeded quota: pods")
	})
	if n := len(h.owned(rs)); n != 0 {
		t.Fatalf("%d pods exist while creation is refused, want 0", n)
	}
	rc.refuse.Store(false)
	h.waitOwned(rs, 4)
	h.waitStatus("web", func(st appsv1.ReplicaSetStatus) error {
		if c := failureCondition(st); c != nil {
			return fmt.Errorf("ReplicaFailure condition %+v after creates succeeded, want none", c)
		}
		return nil
	})
}

func failureCondition(st appsv1.ReplicaSetStatus) *appsv1.ReplicaSetCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == appsv1.ReplicaSetReplicaFailure {
			return &st.Conditions[i]
		}
	}
	return nil
}
