package mqttdelivery

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
)

// recorder is a Memory applier that checks what it is given: every Apply
// at a revision above the last one applied (nothing twice, nothing out of
// order), every Resync at or above it, and no object ever set back to an
// older resourceVersion than it held.
type recorder struct {
	*client.Memory

	mu         sync.Mutex
	last       int64
	applies    int
	resyncs    int
	violations []string
}

func newRecorder() *recorder { return &recorder{Memory: client.NewMemory()} }

func (r *recorder) Apply(ctx context.Context, ev mqtt.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ev.Rev <= r.last {
		r.violations = append(r.violations, fmt.Sprintf("Apply at %d after %d", ev.Rev, r.last))
	}
	for _, c := range ev.Changes {
		if c.Type == mqtt.Deleted {
			continue
		}
		held, ok := r.Memory.Get(c.ObjectRef)
		if rv := objectRV(c.Object); ok && rv < held.ResourceVersion {
			r.violations = append(r.violations, fmt.Sprintf("Apply at %d sets %s back from %d to %d", ev.Rev, c.ObjectRef, held.ResourceVersion, rv))
		}
	}
	r.last = ev.Rev
	r.applies++
	return r.Memory.Apply(ctx, ev)
}

func (r *recorder) Resync(ctx context.Context, st client.State) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st.Rev < r.last {
		r.violations = append(r.violations, fmt.Sprintf("Resync at %d after applying %d", st.Rev, r.last))
	}
	r.last = st.Rev
	r.resyncs++
	return r.Memory.Resync(ctx, st)
}

func (r *recorder) stats() (applies, resyncs int, violations []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.applies, r.resyncs, append([]string(nil), r.violations...)
}

func objectRV(obj []byte) int64 {
	var m struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if json.Unmarshal(obj, &m) != nil {
		return 0
	}
	rv, _ := strconv.ParseInt(m.Metadata.ResourceVersion, 10, 64)
	return rv
}
