package agent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// fakeImporter records the tarballs it is given; each holds one image
// named after its content.
type fakeImporter struct {
	got     []string
	fail    bool
	present map[string]bool
}

func (f *fakeImporter) ListImages(context.Context) ([]runtime.Image, error) {
	var out []runtime.Image
	for name := range f.present {
		out = append(out, runtime.Image{Name: name})
	}
	return out, nil
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
	name := "docker.io/library/" + strings.ToLower(string(b)) + ":1"
	if f.present == nil {
		f.present = map[string]bool{}
	}
	f.present[name] = true
	return []runtime.Image{{Name: name}}, nil
}

func TestImageDirImportsNewAndChangedFiles(t *testing.T) {
	dir := t.TempDir()
	rt := &fakeImporter{}
	d := newImageDir(dir, filepath.Join(t.TempDir(), "record.json"), rt, slog.New(slog.NewTextHandler(io.Discard, nil)))
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

func TestImageDirRemembersImportsAcrossRestarts(t *testing.T) {
	dir, record := t.TempDir(), filepath.Join(t.TempDir(), "record.json")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, name := range []string{"a.tar", "b.tar"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.TrimSuffix(name, ".tar")), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rt := &fakeImporter{}
	if n := newImageDir(dir, record, rt, quiet).scan(context.Background()); n != 2 {
		t.Fatalf("first start: got %d imports, want 2", n)
	}
	// A restart with both images still in containerd reads no tarball.
	if n := newImageDir(dir, record, rt, quiet).scan(context.Background()); n != 0 {
		t.Errorf("restart: got %d imports, want 0", n)
	}
	// An image removed from containerd is imported again at the next start.
	delete(rt.present, "docker.io/library/b:1")
	if n := newImageDir(dir, record, rt, quiet).scan(context.Background()); n != 1 || rt.got[len(rt.got)-1] != "b" {
		t.Errorf("image gone: got %d imports (%q), want b again", n, rt.got)
	}
	// An unreadable record means importing everything, not failing.
	if err := os.WriteFile(record, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := newImageDir(dir, record, rt, quiet).scan(context.Background()); n != 2 {
		t.Errorf("corrupt record: got %d imports, want 2", n)
	}
}
