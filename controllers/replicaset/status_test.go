package replicaset

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

func TestStatusCountsReadyAndAvailablePods(t *testing.T) {
	h := start(t, nil)
	rs := h.createRS("web", 3, 0)
	got := h.waitOwned(rs, 3)
	h.markReady(got[0].Name, time.Now())
	h.markReady(got[1].Name, time.Now())
	h.waitStatus("web", wantCounts(3, 2, 2))
	h.markReady(got[2].Name, time.Now())
	h.waitStatus("web", wantCounts(3, 3, 3))
}

// wantCounts checks replicas, readyReplicas and availableReplicas.
func wantCounts(replicas, ready, available int32) func(appsv1.ReplicaSetStatus) error {
	return func(st appsv1.ReplicaSetStatus) error {
		if st.Replicas != replicas || st.ReadyReplicas != ready || st.AvailableReplicas != available {
			return fmt.Errorf("status replicas/ready/available = %d/%d/%d, want %d/%d/%d",
				st.Replicas, st.ReadyReplicas, st.AvailableReplicas, replicas, ready, available)
		}
		return nil
	}
}

func TestMinReadySecondsDelaysAvailability(t *testing.T) {
	const minReady = 2
	h := start(t, nil)
	rs := h.createRS("web", 2, minReady)
	got := h.waitOwned(rs, 2)
	// Whole seconds: the stored lastTransitionTime keeps no fraction.
	readySince := time.Now().Truncate(time.Second)
	for _, p := range got {
		h.markReady(p.Name, readySince)
	}
	// Ready at once, available only minReadySeconds after readySince
	// (at least a second from now).
	availableAt := readySince.Add(minReady * time.Second)
	h.waitStatus("web", wantCounts(2, 2, 0))
	h.waitStatus("web", wantCounts(2, 2, 2))
	if now := time.Now(); now.Before(availableAt) {
		t.Fatalf("pods counted available at %v, before minReadySeconds passed (%v)", now, availableAt)
	}
}
