package eviction

import (
	"os"
	"path/filepath"
	"syscall"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/nodeinfo"
	"github.com/bramble-edge/bramble/internal/meminfo"
)

// signal is one eviction signal as measured this round.
type signal struct {
	resource             corev1.ResourceName
	pressed              bool
	threshold, available int64
}

// signals measures nodefs.available (the data directory's filesystem)
// and memory.available (MemAvailable), disk first.
func (m *Manager) signals() []signal {
	var out []signal
	if free, total, err := statfs(m.cfg.DataDir); err != nil {
		m.log.Warn("eviction: measure the node filesystem", "err", err)
	} else {
		out = append(out, judge(corev1.ResourceEphemeralStorage, m.cfg.Thresholds.DiskFree, free, total))
	}
	path := filepath.Join(m.cfg.Root, "proc/meminfo")
	if mem, err := meminfo.Read(path, meminfo.Available, meminfo.Total); err != nil {
		m.log.Warn("eviction: read meminfo", "err", err)
	} else {
		out = append(out, judge(corev1.ResourceMemory, m.cfg.Thresholds.MemoryAvailable,
			mem[meminfo.Available], mem[meminfo.Total]))
	}
	return out
}

func judge(r corev1.ResourceName, th nodeinfo.Threshold, free, total uint64) signal {
	limit := th.Bytes
	if th.Percent > 0 {
		limit = int64(float64(total) * th.Percent / 100)
	}
	return signal{resource: r, pressed: th.Below(free, total), threshold: limit, available: int64(free)}
}

// statfs is the free (for unprivileged users, as df) and total bytes of
// the filesystem holding dir or its nearest existing parent.
func statfs(dir string) (free, total uint64, err error) {
	for {
		var st syscall.Statfs_t
		err = syscall.Statfs(dir, &st)
		if err == nil {
			return st.Bavail * uint64(st.Bsize), st.Blocks * uint64(st.Bsize), nil
		}
		parent := filepath.Dir(dir)
		if !os.IsNotExist(err) || parent == dir {
			return 0, 0, err
		}
		dir = parent
	}
}
