package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/encryption"
)

// startOn runs a real server on dir until the test ends (or stop is called).
func startOn(t *testing.T, dir string, plaintext bool) *Server {
	t.Helper()
	return mustStartOnFreePorts(t, Config{DataDir: dir, WriteKubeconfig: filepath.Join(dir, "kubeconfig.yaml"), DisableAgent: true,
		DisableScheduler: true, DisableSecretsEncryption: plaintext, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// createSecret stores a Secret whose one value is value, and checks that
// the registry and the informer cache read it back in plaintext.
func createSecret(t *testing.T, s *Server, name, value string) {
	t.Helper()
	ctx := context.Background()
	sec := &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Data: map[string][]byte{"pw": []byte(value)}}
	if _, err := s.Client.Create(ctx, sec); err != nil {
		t.Fatal(err)
	}
	res, _ := api.ByKind("", "Secret")
	got, err := s.Client.Get(ctx, res, "default", name)
	if err != nil || string(got.(*corev1.Secret).Data["pw"]) != value {
		t.Fatalf("registry read %v, %v: want the plaintext value", got, err)
	}
	inf := s.Cache.Informer(res)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if obj, ok := inf.Get("default", name); ok {
			if string(obj.(*corev1.Secret).Data["pw"]) != value {
				t.Fatalf("informer cache holds %q, want the plaintext", obj.(*corev1.Secret).Data["pw"])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the informer cache never saw the Secret")
		}
	}
}

// onDisk lists the files of the data dir's datastore (state.db, its WAL)
// and a snapshot saved as `bramble datastore snapshot save` saves it,
// whose contents hold value in plain or base64 form.
func onDisk(t *testing.T, dir, value string) []string {
	t.Helper()
	db := datastore.DefaultSQLitePath(dir)
	snap := filepath.Join(t.TempDir(), "snap.db")
	if err := datastore.SnapshotSave(context.Background(), db, snap); err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, f := range []string{db, db + "-wal", snap} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(value)) || bytes.Contains(data, []byte(base64.StdEncoding.EncodeToString([]byte(value)))) {
			found = append(found, filepath.Base(f))
		}
	}
	return found
}

func TestSecretValuesNeverReachTheDisk(t *testing.T) {
	const value = "correct-horse-battery-staple-7f3a"
	dir := t.TempDir()
	s := startOn(t, dir, false)
	createSecret(t, s, "db-password", value)
	if found := onDisk(t, dir, value); len(found) != 0 {
		t.Fatalf("the Secret's value is readable in %v", found)
	}
	// The same search finds it in a cluster started without encryption.
	plain := t.TempDir()
	createSecret(t, startOn(t, plain, true), "db-password", value)
	if found := onDisk(t, plain, value); len(found) == 0 {
		t.Fatal("the search finds nothing even in a plaintext cluster: it proves nothing")
	}
}

func TestClusterFromBeforeEncryptionMigratesOnline(t *testing.T) {
	const value = "legacy-value-from-before-9c1e"
	dir := t.TempDir()
	s := startOn(t, dir, true)
	createSecret(t, s, "legacy", value)
	s.Stop()
	// A data dir from before encryption existed has no keys file.
	if err := os.Remove(encryption.KeysPath(dir)); err != nil {
		t.Fatal(err)
	}
	s = startOn(t, dir, false)
	admin := encryption.NewAdmin(s.Secrets)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		st, err := admin.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Plaintext == 0 && st.Stage == encryption.StageFinished {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %d plaintext Secrets after 10 s (stage %s)", st.Plaintext, st.Stage)
		}
	}
	createSecret(t, s, "after", "x") // reads still work, cache included
	// Older revisions keep the plaintext until compaction drops them.
	rev, _ := s.SQLite.CurrentRevision(context.Background())
	if err := s.SQLite.Compact(context.Background(), rev); err != nil {
		t.Fatal(err)
	}
	if found := onDisk(t, dir, value); slices.Contains(found, "snap.db") {
		t.Fatalf("a snapshot after migration and compaction holds the value (found in %v)", found)
	}
}

func TestSecretsEncryptOverHTTP(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := startOn(t, dir, false)
	createSecret(t, s, "a", "value-a")
	c, err := encryption.NewClientFromFile(s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	before := s.Secrets.Keys().Current()
	res, err := c.Do(ctx, "rotate-keys", false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reencrypted.Rewritten < 2 || !res.Status.Enabled || len(res.Status.Keys) != 2 ||
		!res.Status.Keys[0].Current || res.Status.Keys[0].ID == before || res.Status.Keys[1].Secrets != 0 {
		t.Fatalf("rotate-keys answered %+v: want every Secret (the Secret and the join token) moved to a new key", res)
	}
	createSecret(t, s, "b", "value-b")
	if _, err := c.Do(ctx, "disable", false); err != nil {
		t.Fatal(err)
	}
	if st, err := c.Status(ctx); err != nil || st.Enabled || st.Plaintext != 3 {
		t.Fatalf("status after disable: got %+v, %v, want 3 plaintext Secrets", st, err)
	}
	if _, err := c.Do(ctx, "unknown", false); err == nil {
		t.Fatal("an unknown operation was accepted")
	}
	resp, err := httpsClient(t, s).Post(s.URL+encryption.PathPrefix+"reencrypt", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("anonymous reencrypt: got %d, want 401", resp.StatusCode)
	}
}

// httpsClient trusts the server's CA and presents no credentials.
func httpsClient(t *testing.T, s *Server) *http.Client {
	t.Helper()
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.PKI.CAPool()}}}
}

// TestAgentsGetSecretsInPlaintext: what a node relists (the publisher's
// view, sent to the agent inside TLS) carries the Secret its pod mounts
// in plaintext, while the datastore holds ciphertext.
func TestAgentsGetSecretsInPlaintext(t *testing.T) {
	const value = "agent-visible-value-42b7"
	ctx := context.Background()
	dir := t.TempDir()
	s := startOn(t, dir, false)
	createSecret(t, s, "mounted", value)
	node := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p"},
		Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes: []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "mounted"}}}}}}
	for _, obj := range []api.Object{node, pod} {
		if _, err := s.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	want := []byte(base64.StdEncoding.EncodeToString([]byte(value)))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		v, err := s.Publisher.View(ctx, "n1", 0)
		var body []byte
		if err == nil {
			body, err = v.Encode()
		}
		if err == nil && bytes.Contains(body, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node n1's view never held the Secret's value (last error %v)", err)
		}
	}
	if found := onDisk(t, dir, value); len(found) != 0 {
		t.Fatalf("the Secret's value is readable in %v", found)
	}
}

// TestWrongKeysFileRefusesStartNamingTheKey: a server given another
// cluster's keys file (or one that lost a key) says which key it misses.
func TestWrongKeysFileRefusesStartNamingTheKey(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	s := startOn(t, dir, false)
	createSecret(t, s, "a", "v")
	id := s.Secrets.Keys().Current()
	s.Stop()
	startOn(t, other, false).Stop()
	data, err := os.ReadFile(encryption.KeysPath(other))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(encryption.KeysPath(dir), data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = startOnFreePorts(t, Config{DataDir: dir, WriteKubeconfig: filepath.Join(dir, "kubeconfig.yaml"), DisableAgent: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err == nil || !strings.Contains(err.Error(), `key "`+id+`" is not in `+encryption.KeysPath(dir)) {
		t.Fatalf("start with another cluster's keys file: got %v, want an error naming key %q", err, id)
	}
}
