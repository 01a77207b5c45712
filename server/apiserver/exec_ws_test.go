package apiserver

import (
	"bytes"
	"testing"
)

func TestDecodeWSMessage(t *testing.T) {
	if m := decodeWSMessage([]byte("\x00hi"), true); string(m.stdin) != "hi" {
		t.Errorf("stdin: got %+v", m)
	}
	if m := decodeWSMessage([]byte("\x04{\"Width\":80,\"Height\":24}"), true); m.size == nil || m.size.Width != 80 || m.size.Height != 24 {
		t.Errorf("resize: got %+v, want 80x24", m)
	}
	if m := decodeWSMessage([]byte{wsClose, wsStdin}, true); !m.closeStdin {
		t.Errorf("v5 close of stdin: got %+v", m)
	}
	if m := decodeWSMessage([]byte{wsClose, wsStdin}, false); m.closeStdin {
		t.Errorf("v4 has no close signal: got %+v", m)
	}
}

// FuzzDecodeWSMessage: kubectl's WebSocket messages reach the server from
// the network.
func FuzzDecodeWSMessage(f *testing.F) {
	f.Add([]byte("\x00hello"), true)
	f.Add([]byte("\x04{\"Width\":80,\"Height\":24}"), false)
	f.Add([]byte{wsClose, wsStdin}, true)
	f.Fuzz(func(t *testing.T, msg []byte, v5 bool) {
		m := decodeWSMessage(msg, v5)
		if m.stdin != nil && (msg[0] != wsStdin || !bytes.Equal(m.stdin, msg[1:])) {
			t.Fatalf("stdin %q from %q", m.stdin, msg)
		}
		if m.closeStdin && (!v5 || msg[0] != wsClose) {
			t.Fatalf("close from %q (v5 %v)", msg, v5)
		}
		if m.size != nil && msg[0] != wsResize {
			t.Fatalf("size from %q", msg)
		}
	})
}
