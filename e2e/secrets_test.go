package e2e

import (
	"bytes"
	"encoding/base64"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestSecretsEncryptedAtRest: a Secret created with kubectl reads back
// through kubectl, while no file of the data dir (state.db, its WAL, the
// keys) nor a snapshot saved with `bramble datastore snapshot save` holds
// its value, before and after `bramble secrets-encrypt rotate-keys`.
func TestSecretsEncryptedAtRest(t *testing.T) {
	const value = "e2e-at-rest-value-5d09"
	s := cluster.StartServer(t)
	s.MustKubectl("create", "secret", "generic", "db", "--from-literal=password="+value)
	check := func(when string) {
		t.Helper()
		got := s.MustKubectl("get", "secret", "db", "-o", "jsonpath={.data.password}")
		if dec, _ := base64.StdEncoding.DecodeString(got); string(dec) != value {
			t.Fatalf("%s: kubectl reads %q, want the value", when, dec)
		}
		snap := filepath.Join(t.TempDir(), "snap.db")
		bramble(t, "datastore", "snapshot", "save", "--data-dir", s.DataDir, snap)
		if found := filesHolding(t, value, s.DataDir, snap); len(found) != 0 {
			t.Fatalf("%s: the Secret's value is readable in %v", when, found)
		}
	}
	check("created")
	out := bramble(t, "secrets-encrypt", "rotate-keys", "--kubeconfig", s.Kubeconfig)
	if !strings.Contains(out, "Encryption Status: Enabled") || !strings.Contains(out, "Plaintext Secrets: 0") {
		t.Fatalf("rotate-keys printed:\n%s", out)
	}
	check("after rotate-keys")
}

// bramble runs the binary under test and returns its output.
func bramble(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(cluster.Bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("bramble %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// filesHolding lists the files under roots holding value, plain or base64.
func filesHolding(t *testing.T, value string, roots ...string) []string {
	t.Helper()
	needles := [][]byte{[]byte(value), []byte(base64.StdEncoding.EncodeToString([]byte(value)))}
	var found []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !d.Type().IsRegular() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, n := range needles {
				if bytes.Contains(data, n) {
					found = append(found, path)
					break
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return found
}
