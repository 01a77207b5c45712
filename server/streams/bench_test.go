package streams_test

import (
	"io"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/streams"
)

// BenchmarkTunnel4MiB: 4 MiB of a process's output from the agent's
// handler over its TLS tunnel to the server, the request handed over
// directly. Compare with server/logs BenchmarkStreamLogs4MiB, the same
// 4 MiB as MQTT chunks through the embedded broker (docs/EXEC.md).
func BenchmarkTunnel4MiB(b *testing.B) {
	e := newEnvB(b)
	e.rt.flood = 4 << 20
	b.SetBytes(4 << 20)
	for b.Loop() {
		e.rt.written.Store(0)
		conn, err := e.hub.Open(b.Context(), "n1", mqtt.RPCKindExec, execRequest())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := streams.Exec(b.Context(), conn, streams.ExecIO{Stdout: io.Discard}); err != nil {
			b.Fatal(err)
		}
	}
}
