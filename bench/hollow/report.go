package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/internal/periodic"
	"github.com/bramble-edge/bramble/mqtt"
)

// receiptReporter writes one line per desired Event that carries one
// object, "recv <node> <event rev> <unix ns of receipt>", and "gc <n>"
// when the process's completed collections changed, so that a
// benchmark in another process can time commit-to-receipt on the same
// clock (-report-receipts). Lines are buffered and flushed every few
// milliseconds: the time is in the line, not in when it is read.
type receiptReporter struct {
	ref mqtt.ObjectRef
	mu  sync.Mutex
	w   *bufio.Writer
	gcs uint64 // collections of this process last reported
}

// gcCycles reads the process's completed collections (no stop-the-world,
// unlike runtime.ReadMemStats).
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sayCollections writes "gc <n>" when this process completed collections
// since the last such line, so that a benchmark can tell which updates the
// agents' collector ran in.
func (r *receiptReporter) sayCollections() {
	if n := gcCycles(); n != r.gcs {
		r.gcs = n
		fmt.Fprintf(r.w, "gc %d\n", n)
	}
}

func newReceiptReporter(ref mqtt.ObjectRef, out io.Writer) *receiptReporter {
	return &receiptReporter{ref: ref, w: bufio.NewWriterSize(out, 64<<10)}
}

// parseObjectRef reads "resource/namespace/name" (namespace empty for
// cluster-scoped objects: "nodes//pi-1").
func parseObjectRef(s string) (mqtt.ObjectRef, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 || parts[0] == "" || parts[2] == "" {
		return mqtt.ObjectRef{}, fmt.Errorf("-report-receipts %q: want resource/namespace/name", s)
	}
	return mqtt.ObjectRef{Resource: parts[0], Namespace: parts[1], Name: parts[2]}, nil
}

// onReceive is a hollownode.Config.OnReceive.
func (r *receiptReporter) onReceive(node string, ev *mqtt.Event, at time.Time) {
	if !slices.ContainsFunc(ev.Changes, func(c mqtt.Change) bool { return c.ObjectRef == r.ref }) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.w, "recv %s %d %d\n", node, ev.Rev, at.UnixNano())
}

// say writes a line of its own at once.
func (r *receiptReporter) say(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.w.WriteString(line + "\n")
	r.w.Flush()
}

// flushEvery flushes what was written every d until ctx ends.
func (r *receiptReporter) flushEvery(ctx context.Context, d time.Duration) {
	periodic.Every(ctx, d, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.sayCollections()
		r.w.Flush()
	})
}
