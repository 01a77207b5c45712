package agent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// fakeImporter records the tarballs it is given.
type fakeImporter struct {
	got  []string
	fail bool
}

func (f *fakeImporter) ImportImages(_ context.Context, r io.Reader) ([]runtime.Image, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	f.got = append(f.got, string(b))
	if f.fail {
		return nil, errors.New("not a tarball")
	}
	return []runtime.Image{{Name: "docker.io/library/x:1"}}, nil
}

func TestImageDirImportsNewAndChangedFiles(t *testing.T) {
	dir := t.TempDir()
	rt := &fakeImporter{}
	d := newImageDir(dir, rt, slog.New(slog.NewTextHandler(io.Discard, nil)))
	write := func(name, body string, mtime time.Time) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour)
	write("a.tar", "A", t0)
	write("b.tar.tmp", "partial", t0)
	write(".c.tar", "hidden", t0)
	if n := d.scan(context.Background()); n != 1 {
		t.Fatalf("first scan: got %d imports, want 1 (temporary and hidden files skipped)", n)
	}
	if n := d.scan(context.Background()); n != 0 {
		t.Errorf("second scan: got %d imports, want 0", n)
	}
	write("a.tar", "A2", t0.Add(time.Minute))
	if n := d.scan(context.Background()); n != 1 || rt.got[len(rt.got)-1] != "A2" {
		t.Errorf("changed file: got %d imports of %q, want 1 of A2", n, rt.got)
	}
	rt.fail = true
	write("d.tar", "D", t0)
	if n := d.scan(context.Background()); n != 0 || len(rt.got) != 3 {
		t.Errorf("failing import: got %d imports, %d attempts; want 0, 3", n, len(rt.got))
	}
	if d.scan(context.Background()); len(rt.got) != 3 {
		t.Errorf("a failed file was retried before it changed")
	}
}
