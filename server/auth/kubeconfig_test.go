package auth

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLoadKubeconfigK3sStyle(t *testing.T) {
	kc, err := LoadKubeconfig(filepath.Join("testdata", "k3s-style.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cluster, user, err := kc.Current()
	if err != nil {
		t.Fatalf("Current: %v", err)
	}
	if cluster.Name != "other" || cluster.Cluster.Server != "https://other:6443" {
		t.Errorf("cluster: got %q at %q, want other at https://other:6443", cluster.Name, cluster.Cluster.Server)
	}
	if user.User.Token != "abc123.abcdefghijklmnopqrstuvwxyz012345" {
		t.Errorf("token: got %q", user.User.Token)
	}
	if got := string(kc.Users[0].User.ClientKeyData); got != "key" {
		t.Errorf("client-key-data: got %q, want base64-decoded \"key\"", got)
	}
}

func TestKubeconfigRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "user.yaml")
	if err := WriteUserKubeconfig(path, "https://10.0.0.1:6443", []byte("CA PEM"), "tok"); err != nil {
		t.Fatal(err)
	}
	kc, err := LoadKubeconfig(path)
	if err != nil {
		t.Fatal(err)
	}
	cluster, user, err := kc.Current()
	if err != nil {
		t.Fatal(err)
	}
	if string(cluster.Cluster.CertificateAuthorityData) != "CA PEM" || user.User.Token != "tok" ||
		cluster.Cluster.Server != "https://10.0.0.1:6443" {
		t.Errorf("round trip: got server %q CA %q token %q", cluster.Cluster.Server,
			cluster.Cluster.CertificateAuthorityData, user.User.Token)
	}
	if kc.APIVersion != "v1" || kc.Kind != "Config" {
		t.Errorf("header: got %s/%s, want v1/Config", kc.APIVersion, kc.Kind)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the kubeconfig (no temporary files)", len(entries))
	}
}

func TestLoadKubeconfigErrors(t *testing.T) {
	if _, err := LoadKubeconfig(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("missing file: got nil error")
	}
	if _, err := ParseKubeconfig([]byte("clusters: [oops")); err == nil {
		t.Error("broken YAML: got nil error")
	}
	if _, err := ParseKubeconfig([]byte("users:\n- user:\n    client-key-data: '!!notbase64'\n")); err == nil {
		t.Error("bad base64: got nil error")
	}
}

func FuzzParseKubeconfig(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "k3s-style.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte("{}"))
	f.Add([]byte("current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		kc, err := ParseKubeconfig(data)
		if err != nil {
			return
		}
		cluster, user, err := kc.Current()
		if err == nil && (cluster == nil || user == nil) {
			t.Fatal("Current returned no error and a nil entry")
		}
	})
}
