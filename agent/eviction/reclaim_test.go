package eviction

import (
	"context"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/nodeinfo"
	"github.com/bramble-edge/bramble/internal/tmpfstest"
)

// fakePods is one BestEffort pod the manager may evict.
type fakePods struct{ evicted []types.UID }

func (f *fakePods) Usage(context.Context) []PodUsage {
	return []PodUsage{usagePod("besteffort", 1<<20, "", 0)}
}

func (f *fakePods) Evict(uid types.UID, _ string) bool {
	f.evicted = append(f.evicted, uid)
	return true
}

// TestReclaimBeforeEvict: on a real full filesystem, a round first asks
// for node-level disk back (unused images); when that relieves the
// pressure no pod is evicted, when it does not the pod goes.
func TestReclaimBeforeEvict(t *testing.T) {
	dir := tmpfstest.Mount(t, "4m")
	ballast := tmpfstest.Fill(t, dir)
	th, err := nodeinfo.ParseEvictionHard("nodefs.available<50%")
	if err != nil {
		t.Fatal(err)
	}
	pods := &fakePods{}
	reclaims, free := 0, true
	m := New(pods, Config{DataDir: dir, Thresholds: th, ReclaimDisk: func(context.Context) {
		reclaims++
		if free {
			if err := os.Remove(ballast); err != nil {
				t.Error(err)
			}
		}
	}})
	if got := m.Round(context.Background()); len(got) != 0 || reclaims != 1 {
		t.Fatalf("reclaim freed the disk: evicted %v after %d reclaims, want none after 1", got, reclaims)
	}
	tmpfstest.Fill(t, dir)
	free = false
	if got := m.Round(context.Background()); len(got) != 1 || reclaims != 2 {
		t.Fatalf("reclaim freed nothing: evicted %v after %d reclaims, want the pod after 2", got, reclaims)
	}
}
