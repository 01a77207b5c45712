package runtime

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestExecStream runs processes with live streams in a real container:
// stdin through cat with its end closing the process's stdin, the exit
// code, and a terminal whose size, sent after the client's first keys,
// the process sees from its start.
func TestExecStream(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := rt.RunContainer(ctx, ContainerSpec{ID: "live", Image: busybox, Command: []string{"sleep", "60"}}); err != nil {
		t.Fatalf("RunContainer: %v", err)
	}
	in := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	var out, errb bytes.Buffer
	code, err := rt.ExecStream(ctx, "live", []string{"sh", "-c", "cat; echo done >&2; exit 4"},
		ExecStreams{Stdin: bytes.NewReader(in), Stdout: &out, Stderr: &errb})
	if err != nil || code != 4 || !bytes.Equal(out.Bytes(), in) || errb.String() != "done\n" {
		t.Fatalf("ExecStream cat: got code %d, %d bytes (equal %v), stderr %q, %v; want 4, the 1 MiB, \"done\\n\"",
			code, out.Len(), bytes.Equal(out.Bytes(), in), errb.String(), err)
	}
	// The client types at once and its size comes 200 ms later: the
	// process must still start with the size, not 0x0 (stty size fails).
	sizes := make(chan TermSize, 1)
	go func() {
		time.Sleep(200 * time.Millisecond)
		sizes <- TermSize{Width: 123, Height: 45}
	}()
	var tty bytes.Buffer
	pr, pw := io.Pipe()
	go func() { _, _ = pw.Write([]byte("stty size; exit 0\n")) }()
	code, err = rt.ExecStream(ctx, "live", []string{"sh"}, ExecStreams{Stdin: pr, Stdout: &tty, TTY: true, Resize: sizes})
	pw.Close()
	if err != nil || code != 0 || !strings.Contains(tty.String(), "45 123") {
		t.Fatalf("ExecStream with a TTY: got code %d, output %q, %v; want 0 and \"45 123\"", code, tty.String(), err)
	}
}
