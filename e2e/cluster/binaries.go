package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// CopyBinaries copies bramble and bramble-log (the binaries Build made)
// into a folder of the test's own and returns the path of the bramble
// copy. An agent started from it maps an executable that no server of the
// test also runs, as on a node, so memory figures count the pages the
// agent itself brought in. Each copy is written in one piece, as the
// linker writes its output: the kernel may then cache it in folios as
// large as 2 MiB, each mapped whole when one byte of it is touched, the
// worst case for a process's RSS. The copies are synced to disk: an
// installed binary's pages are clean.
func CopyBinaries(t testing.TB) string {
	t.Helper()
	return copyBinariesOf(t, Bin)
}

// CopyAgentOnlyBinaries is CopyBinaries of the agent-only build
// (AgentOnlyBin), as install.sh puts it on an agent.
func CopyAgentOnlyBinaries(t testing.TB) string {
	t.Helper()
	return copyBinariesOf(t, AgentOnlyBin(t))
}

// copyBinariesOf copies bin and the bramble-log beside it.
func copyBinariesOf(t testing.TB, bin string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"bramble", "bramble-log"} {
		if err := copySynced(filepath.Join(filepath.Dir(bin), name), filepath.Join(dir, name)); err != nil {
			t.Fatalf("copy %s: %v", name, err)
		}
	}
	return filepath.Join(dir, "bramble")
}

func copySynced(from, to string) error {
	raw, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := f.Write(raw); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", to, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", to, err)
	}
	return f.Close()
}

// syncFile writes a file's dirty pages to disk: a process then runs from
// clean pages, as from an installed binary, which the kernel can drop
// from its cache when the process releases them.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}
