package pods

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestLogPath(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "default_web_uid-1", "app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := LogPath(root, "default", "web", "uid-1", "app", false); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no logs yet: got %v, want a not-exist error", err)
	}
	for _, f := range []string{"9.log", "10.log", "10.log.1", "junk"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		previous bool
		want     string
	}{{false, "10.log"}, {true, "9.log"}} {
		got, err := LogPath(root, "default", "web", "uid-1", "app", c.previous)
		if err != nil || got != filepath.Join(dir, c.want) {
			t.Errorf("previous=%v: got %s, %v; want %s", c.previous, got, err, c.want)
		}
	}
}
