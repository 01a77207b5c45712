package nodeinfo

import (
	"fmt"
	"strings"
)

// evictionSignals maps the kubelet's --eviction-hard signals to the
// threshold each sets.
var evictionSignals = map[string]func(*Thresholds) *Threshold{
	"memory.available":   func(t *Thresholds) *Threshold { return &t.MemoryAvailable },
	"nodefs.available":   func(t *Thresholds) *Threshold { return &t.DiskFree },
	"nodefs.inodesFree":  func(t *Thresholds) *Threshold { return &t.InodesFree },
	"pid.available":      func(t *Thresholds) *Threshold { return &t.PIDsFree },
	"imagefs.available":  nil,
	"imagefs.inodesFree": nil,
}

// ParseEvictionHard reads --eviction-hard in the kubelet's syntax, e.g.
// "memory.available<100Mi,nodefs.available<10%". Signals left out keep
// their defaults (WithDefaults). imagefs signals are refused: the agent
// judges one filesystem, the data directory's.
func ParseEvictionHard(s string) (Thresholds, error) {
	var t Thresholds
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, value, ok := strings.Cut(item, "<")
		name = strings.TrimSpace(name)
		set, known := evictionSignals[name]
		switch {
		case !ok:
			return Thresholds{}, fmt.Errorf("--eviction-hard: %q: want signal<quantity, e.g. nodefs.available<10%%", item)
		case !known:
			return Thresholds{}, fmt.Errorf("--eviction-hard: %q: unknown signal, want memory.available, nodefs.available, nodefs.inodesFree or pid.available", name)
		case set == nil:
			return Thresholds{}, fmt.Errorf("--eviction-hard: %s: images share the node filesystem on bramble; set nodefs.available instead", name)
		case seen[name]:
			return Thresholds{}, fmt.Errorf("--eviction-hard: %s is given twice", name)
		}
		seen[name] = true
		th, err := ParseThreshold("--eviction-hard: "+name, value)
		if err != nil {
			return Thresholds{}, err
		}
		if th == (Threshold{}) {
			return Thresholds{}, fmt.Errorf("--eviction-hard: %s<%s: a zero threshold; leave the signal out for its default", name, value)
		}
		*set(&t) = th
	}
	return t, nil
}

// WithDefaults is t with its zero thresholds set to the defaults.
func WithDefaults(t Thresholds) Thresholds {
	t.setDefaults()
	return t
}

// Below reports whether free is under the threshold, relative to total.
func (t Threshold) Below(free, total uint64) bool { return t.below(free, total) }
