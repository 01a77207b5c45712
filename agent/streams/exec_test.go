package streams

import (
	"bytes"
	"io"
	"net"
	"testing"

	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/mqtt/tunnel"
)

// TestFrameWriterSplits: output larger than a frame goes as several.
func TestFrameWriterSplits(t *testing.T) {
	var b bytes.Buffer
	w := &frameWriter{fw: tunnel.NewWriter(&b), ch: tunnel.Stdout}
	in := bytes.Repeat([]byte("x"), 2*tunnel.MaxData+5)
	if n, err := w.Write(in); n != len(in) || err != nil {
		t.Fatalf("Write: got %d, %v; want %d, nil", n, err, len(in))
	}
	r := tunnel.NewReader(&b)
	for _, want := range []int{tunnel.MaxData, tunnel.MaxData, 5} {
		ch, p, err := r.Read()
		if err != nil || ch != tunnel.Stdout || len(p) != want {
			t.Fatalf("frame: got channel %d, %d bytes, %v; want stdout, %d bytes", ch, len(p), err, want)
		}
	}
}

// TestReadClient: stdin bytes reach the process, stdin's end closes its
// pipe, and only the newest of several sizes waits.
func TestReadClient(t *testing.T) {
	server, agent := net.Pipe()
	pr, pw := io.Pipe()
	sizes := make(chan runtime.TermSize, 1)
	done := make(chan error, 1)
	go func() { done <- readClient(agent, pw, sizes) }()
	fw := tunnel.NewWriter(server)
	go func() {
		_ = fw.WriteJSON(tunnel.Resize, tunnel.Size{Width: 1, Height: 1})
		_ = fw.WriteJSON(tunnel.Resize, tunnel.Size{Width: 80, Height: 24})
		_ = fw.Write(tunnel.Stdin, []byte("hello"))
		_ = fw.Write(tunnel.CloseStdin, nil)
	}()
	got, err := io.ReadAll(pr)
	if err != nil || string(got) != "hello" {
		t.Fatalf("stdin: got %q, %v; want \"hello\" then EOF", got, err)
	}
	if sz := <-sizes; sz != (runtime.TermSize{Width: 80, Height: 24}) {
		t.Fatalf("size: got %+v, want the newest, 80x24", sz)
	}
	server.Close()
	if err := <-done; err == nil {
		t.Fatal("readClient after the connection closed: got nil, want the read error")
	}
}
