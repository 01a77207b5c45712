package logs_test

import (
	"io"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/runtime/logdriver"
	"github.com/bramble-edge/bramble/server/logs"
)

// BenchmarkStreamLogs4MiB copies a 4 MiB log (100-byte lines) from an
// agent's handler through the embedded broker (TLS) to the server.
func BenchmarkStreamLogs4MiB(b *testing.B) {
	c := newCluster(b)
	n := c.addNode(b, "pi-1")
	w, err := logdriver.OpenWriter(n.logPath("uid-1", "c", 0), 64<<20, 2)
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(strings.Repeat("x", 99))
	var size int64
	for size < 4<<20 {
		w.WriteLine("stdout", false, line)
		size += int64(len(line) + 1)
	}
	w.Close()
	s := logs.New(c.bus, quiet())
	b.SetBytes(size)
	for b.Loop() {
		if err := s.StreamLogs(b.Context(), "pi-1", testPod("pi-1"), &corev1.PodLogOptions{Container: "c"}, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
