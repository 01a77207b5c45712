package scheduler

// resourcesFit keeps the requests of the pods on a node within its
// allocatable CPU, memory and ephemeral storage. Only resources the pod
// asks for are checked, so a pod without requests fits anywhere (as far as
// this filter is concerned), even on a node that is overcommitted already.
type resourcesFit struct{}

// fitReasons[mask] lists the short resources for each combination of
// bits: 1 cpu, 2 memory, 4 ephemeral-storage, in kube-scheduler's order.
var fitReasons = func() [8][]string {
	var out [8][]string
	names := []string{"Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage"}
	for mask := 1; mask < 8; mask++ {
		for bit, name := range names {
			if mask&(1<<bit) != 0 {
				out[mask] = append(out[mask], name)
			}
		}
	}
	return out
}()

func (resourcesFit) filter(c *cycle, n *nodeInfo) []string {
	want := c.pod.req
	if want.isZero() {
		return nil
	}
	mask := 0
	if want.milliCPU > 0 && want.milliCPU > n.alloc.milliCPU-n.requested.milliCPU {
		mask |= 1
	}
	if want.memory > 0 && want.memory > n.alloc.memory-n.requested.memory {
		mask |= 2
	}
	if want.ephemeral > 0 && want.ephemeral > n.alloc.ephemeral-n.requested.ephemeral {
		mask |= 4
	}
	return fitReasons[mask]
}
