package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// appManifest: a ConfigMap before the Namespace it lives in (the
// deployer orders namespaces first), one object opted in to deletion
// with its file and one that stays.
const appManifest = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: iot
  annotations: {deploy.bramble.dev/delete-with-file: "true"}
data: {level: VALUE}
---
apiVersion: v1
kind: Namespace
metadata: {name: iot}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: kept, namespace: iot}
data: {a: "1"}
`

// badManifest's second document misspells a field; the others apply.
const badManifest = `apiVersion: v1
kind: ConfigMap
metadata: {name: first}
data: {a: "1"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: broken}
dta: {a: "1"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: third}
data: {a: "1"}
`

// TestManifestsFolder drives <data-dir>/server/manifests of a real
// server: files added, changed, skipped and removed, and a bad document.
func TestManifestsFolder(t *testing.T) {
	s := cluster.StartServer(t, "--manifests-interval", "200ms")
	dir := filepath.Join(s.DataDir, "server", "manifests")
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("app.yaml", strings.Replace(appManifest, "VALUE", "info", 1))
	write("bad.yaml", badManifest)
	waitValue(t, s, "info", "get", "cm", "settings", "-n", "iot", "-o", "jsonpath={.data.level}")
	waitValue(t, s, "first third", "get", "cm", "first", "third", "-o", "jsonpath={.items[*].metadata.name}")
	cluster.WaitFor(t, 10*time.Second, func() bool {
		return strings.Contains(s.Logs(), `bad.yaml document 2 (ConfigMap broken): strict decoding error: unknown field \"dta\"`)
	}, "a log line naming bad.yaml, its document 2 and the field:\n"+s.Logs())
	out := s.MustKubectl("get", "cm", "settings", "-n", "iot", "-o", "jsonpath={.metadata.managedFields[0].manager}")
	if out != "bramble-deploy" {
		t.Fatalf("settings is managed by %q, want bramble-deploy", out)
	}

	write("app.yaml", strings.Replace(appManifest, "VALUE", "debug", 1))
	waitValue(t, s, "debug", "get", "cm", "settings", "-n", "iot", "-o", "jsonpath={.data.level}")

	write("later.yaml.skip", "")
	write("later.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: later}\n")
	time.Sleep(time.Second) // five passes
	if _, _, err := s.Kubectl("get", "cm", "later"); err == nil {
		t.Fatal("later.yaml was applied despite later.yaml.skip")
	}
	if err := os.Remove(filepath.Join(dir, "later.yaml.skip")); err != nil {
		t.Fatal(err)
	}
	waitValue(t, s, "later", "get", "cm", "later", "-o", "jsonpath={.metadata.name}")

	if err := os.Remove(filepath.Join(dir, "app.yaml")); err != nil {
		t.Fatal(err)
	}
	cluster.WaitFor(t, 10*time.Second, func() bool {
		_, stderr, err := s.Kubectl("get", "cm", "settings", "-n", "iot")
		return err != nil && strings.Contains(stderr, "not found")
	}, "the opted-in ConfigMap to go with its file")
	s.MustKubectl("get", "cm", "kept", "-n", "iot") // not opted in: stays
}

// TestManifestsDisabled: --disable-manifests applies nothing.
func TestManifestsDisabled(t *testing.T) {
	s := cluster.StartServer(t, "--disable-manifests", "--manifests-interval", "200ms")
	dir := filepath.Join(s.DataDir, "server", "manifests")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	body := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: off}\n"
	if err := os.WriteFile(filepath.Join(dir, "off.yaml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if _, _, err := s.Kubectl("get", "cm", "off"); err == nil {
		t.Fatal("off.yaml was applied with --disable-manifests")
	}
}

// waitValue waits until kubectl args prints want.
func waitValue(t *testing.T, s *cluster.Server, want string, args ...string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, stderr, _ := s.Kubectl(args...)
		if out == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl %s printed %q %s, want %q; server log:\n%s", strings.Join(args, " "), out, stderr, want, s.Logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
