package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bramble-edge/bramble/agent/pods"
	"github.com/bramble-edge/bramble/mqtt"
)

func ref(resource, ns, name string) mqtt.ObjectRef {
	return mqtt.ObjectRef{Resource: resource, Namespace: ns, Name: name}
}

func change(t testing.TB, typ mqtt.ChangeType, r mqtt.ObjectRef, obj any) mqtt.Change {
	t.Helper()
	c := mqtt.Change{Type: typ, ObjectRef: r}
	if obj != nil {
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		c.Object = b
	}
	return c
}

func openStore(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatalf("OpenStore: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStoreSurvivesReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s := openStore(t, dir)
	cm := map[string]any{"kind": "ConfigMap", "metadata": map[string]any{"name": "conf", "namespace": "default"},
		"data": map[string]string{"a": "1"}, "binaryData": map[string][]byte{"b": []byte("2")}}
	sec := map[string]any{"kind": "Secret", "metadata": map[string]any{"name": "pw", "namespace": "default"},
		"data": map[string][]byte{"p": []byte("s3cret")}}
	if err := s.Apply([]mqtt.Change{
		change(t, mqtt.Added, ref("configmaps", "default", "conf"), cm),
		change(t, mqtt.Added, ref("secrets", "default", "pw"), sec),
		change(t, mqtt.Added, ref("pods", "default", "web"), testPod("web", "u1")),
	}, 7); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if err := s.Apply([]mqtt.Change{change(t, mqtt.Deleted, ref("pods", "default", "web"), nil)}, 9); err != nil {
		t.Fatalf("Apply delete: %v", err)
	}

	s2 := openStore(t, dir)
	if got := s2.Rev(); got != 9 {
		t.Errorf("rev after reopen: got %d, want 9", got)
	}
	if _, ok := s2.Get(ref("pods", "default", "web")); ok {
		t.Errorf("deleted pod: still stored after reopen")
	}
	data, err := s2.Lookup(context.Background(), pods.KindConfigMap, "default", "conf")
	if err != nil || string(data["a"]) != "1" || string(data["b"]) != "2" {
		t.Errorf("configmap lookup: got %q, %v, want a=1 b=2", data, err)
	}
	data, err = s2.Lookup(context.Background(), pods.KindSecret, "default", "pw")
	if err != nil || string(data["p"]) != "s3cret" {
		t.Errorf("secret lookup: got %q, %v, want p=s3cret", data, err)
	}
	if _, err := s2.Lookup(context.Background(), pods.KindSecret, "default", "nope"); !errors.Is(err, pods.ErrNotFound) {
		t.Errorf("missing secret: got %v, want ErrNotFound", err)
	}
}

func TestStoreReplaceRemovesWhatIsGone(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	if err := s.Apply([]mqtt.Change{
		change(t, mqtt.Added, ref("pods", "default", "a"), testPod("a", "ua")),
		change(t, mqtt.Added, ref("pods", "default", "b"), testPod("b", "ub")),
	}, 3); err != nil {
		t.Fatal(err)
	}
	if err := s.Replace([]mqtt.Change{change(t, mqtt.Added, ref("pods", "default", "b"), testPod("b", "ub2"))}, 12); err != nil {
		t.Fatalf("Replace: %v", err)
	}
	s2 := openStore(t, dir)
	got := s2.List("pods")
	if len(got) != 1 || got[ref("pods", "default", "b")] == nil || s2.Rev() != 12 {
		t.Errorf("after Replace and reopen: got %d pods at rev %d, want only b at rev 12", len(got), s2.Rev())
	}
}

func TestStoreIgnoresInterruptedWrites(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".pods_default_a.json.tmp-123"), []byte("{half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s := openStore(t, dir); len(s.List("pods")) != 0 {
		t.Errorf("a temporary file was loaded as an object")
	}
}

func TestStoreRefusesDamagedFiles(t *testing.T) {
	for name, content := range map[string]string{
		"pods_default_a.json": "{not json",
		"rev":                 "seven",
		"pods_a.json":         "{}",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenStore(dir); err == nil {
			t.Errorf("%s holding %q: got no error, want one", name, content)
		}
	}
}

func TestStoreRefusesUpsertWithoutObject(t *testing.T) {
	s := openStore(t, t.TempDir())
	err := s.Apply([]mqtt.Change{{Type: mqtt.Added, ObjectRef: ref("pods", "default", "a")}}, 2)
	if err == nil {
		t.Fatalf("ADDED without object: got no error, want one")
	}
	if s.Rev() != 0 {
		t.Errorf("rev after a failed apply: got %d, want 0", s.Rev())
	}
}
