package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const staticManifest = `apiVersion: v1
kind: Pod
metadata:
  name: etcd
spec:
  containers:
  - name: main
    image: busybox
`

func TestParseStaticPod(t *testing.T) {
	pod, err := parseStaticPod([]byte(staticManifest), "pi-1")
	if err != nil {
		t.Fatalf("parseStaticPod: %v", err)
	}
	if pod.Name != "etcd-pi-1" || pod.Namespace != "default" || pod.Spec.NodeName != "pi-1" {
		t.Errorf("got %s/%s on %q, want default/etcd-pi-1 on pi-1", pod.Namespace, pod.Name, pod.Spec.NodeName)
	}
	if !isStaticUID(pod.UID) {
		t.Errorf("uid: got %q, want the static prefix", pod.UID)
	}
	if pod.Spec.RestartPolicy == "" {
		t.Errorf("restartPolicy: got empty, want the API's default")
	}
	other, _ := parseStaticPod([]byte(staticManifest+"    args: [x]\n"), "pi-1")
	if other == nil || other.UID == pod.UID {
		t.Errorf("edited manifest: got the same UID, want a new one")
	}
}

func TestParseStaticPodErrors(t *testing.T) {
	for _, tc := range []struct{ manifest, want string }{
		{"apiVersion: v1\nkind: Service\nmetadata: {name: x}\n", "kind"},
		{"apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {}\n", "spec.containers"},
		{"apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containerz: []}\n", "containerz"},
		{"{", ""},
	} {
		if _, err := parseStaticPod([]byte(tc.manifest), "pi"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error naming %q", tc.manifest, err, tc.want)
		}
	}
}

func TestStaticPodsReadReportsChanges(t *testing.T) {
	dir := t.TempDir()
	s := &staticPods{dir: dir, node: "pi"}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("a.yaml", staticManifest)
	write("notes.txt", "ignored")
	write("bad.yaml", "kind: Pod\n")
	pods, changed, errs := s.read()
	if len(pods) != 1 || !changed || len(errs) != 1 || !strings.Contains(errs[0].Error(), "bad.yaml") {
		t.Fatalf("first read: got %d pods, changed %v, errors %v; want 1, true, one naming bad.yaml", len(pods), changed, errs)
	}
	if _, changed, _ := s.read(); changed {
		t.Errorf("second read of the same files: got changed, want unchanged")
	}
	if err := os.Remove(filepath.Join(dir, "a.yaml")); err != nil {
		t.Fatal(err)
	}
	if pods, changed, _ := s.read(); len(pods) != 0 || !changed {
		t.Errorf("after removing the manifest: got %d pods, changed %v; want 0, true", len(pods), changed)
	}
}
