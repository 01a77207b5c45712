package main

import (
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listenNotify opens a datagram socket as systemd does and points
// NOTIFY_SOCKET at it.
func listenNotify(t *testing.T, name string) *net.UnixConn {
	t.Helper()
	addr := &net.UnixAddr{Name: name, Net: "unixgram"}
	conn, err := net.ListenUnixgram("unixgram", addr)
	if err != nil {
		t.Fatalf("listen %q: %v", name, err)
	}
	t.Cleanup(func() { conn.Close() })
	env := name
	if strings.HasPrefix(name, "\x00") {
		env = "@" + name[1:]
	}
	t.Setenv(notifySocketEnv, env)
	return conn
}

func readNotify(t *testing.T, conn *net.UnixConn) string {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("read notification: %v", err)
	}
	return string(buf[:n])
}

func TestSdNotify(t *testing.T) {
	for name, sock := range map[string]string{
		"path":     filepath.Join(t.TempDir(), "notify"),
		"abstract": "\x00bramble-test-notify-" + t.Name(),
	} {
		t.Run(name, func(t *testing.T) {
			conn := listenNotify(t, sock)
			notifyReady(slog.New(slog.NewTextHandler(io.Discard, nil)), "serving https://127.0.0.1:6443")
			if got, want := readNotify(t, conn), "READY=1\nSTATUS=serving https://127.0.0.1:6443"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestSdNotifyWithoutSocket(t *testing.T) {
	t.Setenv(notifySocketEnv, "")
	if sent, err := sdNotify("READY=1"); sent || err != nil {
		t.Errorf("no NOTIFY_SOCKET: got sent=%v err=%v, want nothing sent and no error", sent, err)
	}
	t.Setenv(notifySocketEnv, filepath.Join(t.TempDir(), "gone"))
	if _, err := sdNotify("READY=1"); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("missing socket: got %v, want an error naming it", err)
	}
}
