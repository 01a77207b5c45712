package cluster

// TestEvictionHard is the --eviction-hard of the agents this harness
// starts on a data dir of the machine's own disk (a t.TempDir()): tests
// and benchmarks that are not about eviction. That disk is shared with
// everything else on a CI machine and may be 90 % full, under the
// default nodefs.available<10%, which then evicted the tests' pods
// (BenchmarkExec). The signal stays on, with a threshold in bytes that a
// test machine reaches only when it is out of room for the tests anyway;
// the other signals keep their defaults. The eviction tests pass their
// own --eviction-hard (that one is then the only one), and agents on a
// data dir of the test's own (a small tmpfs) keep the defaults: their
// disk is not the machine's.
const TestEvictionHard = "nodefs.available<256Mi"

// evictionArgs is the --eviction-hard flag to add to an agent run with
// args on the machine's disk: none when args set their own.
func evictionArgs(args []string) []string {
	if hasFlag(args, "--eviction-hard") {
		return nil
	}
	return []string{"--eviction-hard", TestEvictionHard}
}
