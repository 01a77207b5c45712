package runtime

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// testConsole is a console with no task behind it, for the pure logic.
func testConsole(t *testing.T) *console {
	t.Helper()
	con, err := newConsole(ContainerSpec{ID: "c"}, 1<<20, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(con.finish)
	return con
}

// TestSlowClientIsDetached: a client that lags more than subscriberChunks
// writes is cut off with errSlowClient; the writer never waits for it and
// a client that keeps up still gets everything.
func TestSlowClientIsDetached(t *testing.T) {
	con := testConsole(t)
	slow, fast := con.subscribe(), con.subscribe()
	w := streamWriter{c: con}
	var got strings.Builder
	for i := 0; i < subscriberChunks+1; i++ {
		if _, err := w.Write([]byte("x")); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		got.Write((<-fast.ch).p)
	}
	select {
	case <-slow.ended:
	default:
		t.Fatal("a client lagging more than subscriberChunks writes is still attached")
	}
	if !errors.Is(slow.err, errSlowClient) {
		t.Fatalf("slow client's end: got %v, want errSlowClient", slow.err)
	}
	if got.Len() != subscriberChunks+1 {
		t.Fatalf("fast client got %d bytes, want %d", got.Len(), subscriberChunks+1)
	}
	select {
	case <-fast.ended:
		t.Fatal("a client keeping up was detached")
	default:
	}
}

// TestSubscribeAfterTheEnd: attaching to a console whose output ended
// returns at once.
func TestSubscribeAfterTheEnd(t *testing.T) {
	con, err := newConsole(ContainerSpec{ID: "c"}, 1<<20, 1)
	if err != nil {
		t.Fatal(err)
	}
	con.finish()
	s := con.subscribe()
	select {
	case <-s.ended:
	default:
		t.Fatal("a subscriber of an ended console is not ended")
	}
	if err := con.pump(t.Context(), s, ExecStreams{Stdout: io.Discard}, nil); err != nil {
		t.Fatalf("pump after the end: %v", err)
	}
}

// TestConsoleLabel: what a restarted agent reads back.
func TestConsoleLabel(t *testing.T) {
	if got := consoleLabel(ContainerSpec{Stdin: true, StdinOnce: true, TTY: true}); got != "stdin once tty" {
		t.Fatalf("consoleLabel: got %q", got)
	}
	if got := consoleLabel(ContainerSpec{}); got != "" {
		t.Fatalf("consoleLabel of a plain container: got %q, want empty", got)
	}
}
