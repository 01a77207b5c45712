package bench

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// revReceipts gathers, per update, the first time each node reported an
// Event carrying the ConfigMap at or after the update's revision.
type revReceipts struct {
	mu      sync.Mutex
	rev     int64
	want    int
	seen    map[string]time.Time
	pending map[string]receipt // reported before the update's revision was known
	done    chan struct{}

	agentGCs atomic.Uint64 // the agents' process's collections, as last reported
}

type receipt struct {
	rev int64
	at  time.Time
}

func (r *revReceipts) expect(nodes int) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rev, r.want, r.done = 0, nodes, make(chan struct{})
	r.seen, r.pending = map[string]time.Time{}, map[string]receipt{}
	return r.done
}

// setRev sets the revision being waited for and counts what already came.
func (r *revReceipts) setRev(rev int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rev = rev
	for node, p := range r.pending {
		r.addLocked(node, p)
	}
	r.pending = nil
}

func (r *revReceipts) record(node string, p receipt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.seen == nil:
	case r.rev == 0:
		if _, ok := r.pending[node]; !ok {
			r.pending[node] = p
		}
	default:
		r.addLocked(node, p)
	}
}

func (r *revReceipts) addLocked(node string, p receipt) {
	if _, ok := r.seen[node]; ok || p.rev < r.rev {
		return
	}
	r.seen[node] = p.at
	if len(r.seen) == r.want {
		close(r.done)
	}
}

func (r *revReceipts) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

// take returns the latencies from start, sorted, and stops recording.
func (r *revReceipts) take(start time.Time) []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]time.Duration, 0, len(r.seen))
	for _, at := range r.seen {
		out = append(out, at.Sub(start))
	}
	r.seen = nil
	slices.Sort(out)
	return out
}

// read parses the child's lines until it closes stdout: "running", then
// "recv <node> <rev> <unix ns>" and "gc <collections so far>".
func (r *revReceipts) read(out io.Reader, running chan<- struct{}) {
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 1 && f[0] == "running":
			close(running)
		case len(f) == 2 && f[0] == "gc":
			if n, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				r.agentGCs.Store(n)
			}
		case len(f) == 4 && f[0] == "recv":
			rev, err1 := strconv.ParseInt(f[2], 10, 64)
			ns, err2 := strconv.ParseInt(f[3], 10, 64)
			if err1 == nil && err2 == nil {
				r.record(f[1], receipt{rev: rev, at: time.Unix(0, ns)})
			}
		}
	}
}
