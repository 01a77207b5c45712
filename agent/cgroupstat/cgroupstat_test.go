package cgroupstat

import (
	"os"
	"path/filepath"
	"testing"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Memory reads v1 and v2 layouts; the working set never goes below zero.
func TestMemory(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		usage, ws int64
	}{
		{"v2", map[string]string{"cgroup.controllers": "memory", "ns/p/memory.current": "1000\n",
			"ns/p/memory.stat": "anon 1\ninactive_file 300\n"}, 1000, 700},
		{"v1", map[string]string{"memory/ns/p/memory.usage_in_bytes": "1000\n",
			"memory/ns/p/memory.stat": "inactive_file 5\ntotal_inactive_file 400\n"}, 1000, 600},
		{"v2 cache above usage", map[string]string{"cgroup.controllers": "memory", "ns/p/memory.current": "10\n",
			"ns/p/memory.stat": "inactive_file 300\n"}, 10, 0},
		{"v2 no inactive key", map[string]string{"cgroup.controllers": "memory", "ns/p/memory.current": "10\n",
			"ns/p/memory.stat": "anon 3\n"}, 10, 10},
	}
	for _, tc := range tests {
		root := writeFiles(t, tc.files)
		usage, ws, err := Memory(root, "/ns/p", V2(root))
		if err != nil || usage != tc.usage || ws != tc.ws {
			t.Errorf("%s: got %d, %d, %v; want %d, %d, nil", tc.name, usage, ws, err, tc.usage, tc.ws)
		}
	}
	if _, _, err := Memory(t.TempDir(), "/ns/gone", true); err == nil {
		t.Error("a cgroup that is gone: got no error, want one")
	}
}

// Read reports a cgroup that is gone as not ok.
func TestReadGone(t *testing.T) {
	for _, v2 := range []bool{true, false} {
		if _, ok := Read(t.TempDir(), "/ns/gone", v2); ok {
			t.Errorf("v2=%v: got ok for a cgroup that is gone", v2)
		}
	}
}
