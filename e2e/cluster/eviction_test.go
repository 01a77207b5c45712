package cluster

import (
	"slices"
	"testing"

	"github.com/bramble-edge/bramble/agent/nodeinfo"
)

// TestEvictionArgs: the harness's threshold is one the agent accepts and
// sets only nodefs.available; a test's own --eviction-hard is the only one
// passed.
func TestEvictionArgs(t *testing.T) {
	th, err := nodeinfo.ParseEvictionHard(TestEvictionHard)
	if err != nil {
		t.Fatalf("TestEvictionHard %q: %v", TestEvictionHard, err)
	}
	if th.DiskFree.Bytes == 0 || th.MemoryAvailable != (nodeinfo.Threshold{}) || th.InodesFree != (nodeinfo.Threshold{}) || th.PIDsFree != (nodeinfo.Threshold{}) {
		t.Errorf("TestEvictionHard sets %+v, want nodefs.available in bytes and nothing else", th)
	}
	if got := evictionArgs([]string{"--node-name", "n"}); !slices.Equal(got, []string{"--eviction-hard", TestEvictionHard}) {
		t.Errorf("without a flag of the test's: got %q, want the harness's", got)
	}
	for _, own := range [][]string{{"--eviction-hard", "nodefs.available<25%"}, {"--eviction-hard=nodefs.available<25%"}} {
		if got := evictionArgs(append([]string{"--node-name", "n"}, own...)); got != nil {
			t.Errorf("with %q: got %q, want none added", own, got)
		}
	}
}
