package join

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNodePasswordIsKeptPrivateAndStable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent")
	first, err := LoadOrCreateNodePassword(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckNodePassword(first); err != nil || len(first) != 64 {
		t.Fatalf("drawn password %q: %v, want 64 hex digits", first, err)
	}
	st, err := os.Stat(filepath.Join(dir, NodePasswordFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("password file: %v, mode %v; want 0600", err, st.Mode())
	}
	again, err := LoadOrCreateNodePassword(dir)
	if err != nil || again != first {
		t.Fatalf("second load: %q, %v; want the same password", again, err)
	}
	if err := os.WriteFile(filepath.Join(dir, NodePasswordFile), []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateNodePassword(dir); err == nil || !strings.Contains(err.Error(), "5 characters") {
		t.Fatalf("malformed password file: got %v, want an error naming its length", err)
	}
}

func TestCheckNodePassword(t *testing.T) {
	for pw, ok := range map[string]bool{
		strings.Repeat("a", 32):        true,
		strings.Repeat("a", 128):       true,
		strings.Repeat("a", 31):        false,
		strings.Repeat("a", 129):       false,
		strings.Repeat("a", 31) + "é":  false,
		strings.Repeat("a", 31) + "\t": false,
	} {
		if err := CheckNodePassword(pw); (err == nil) != ok {
			t.Errorf("CheckNodePassword(%q): %v, want ok=%t", pw, err, ok)
		}
	}
}
