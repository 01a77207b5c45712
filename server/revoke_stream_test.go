package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/server/auth"
)

// A deleted user's and a deleted node's open watches end within seconds
// of the deletion (upstream lets them run until they time out), and the
// credentials are refused afterwards.
func TestRevokedCredentialsEndOpenWatches(t *testing.T) {
	e := &revokeEnv{t: t, dir: t.TempDir()}
	e.start()
	users, err := auth.NewUserClientFromFile(filepath.Join(e.dir, "kubeconfig.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	token, err := users.CreateUser(context.Background(), "alice", "viewer")
	if err != nil {
		t.Fatal(err)
	}
	tc := &tls.Config{RootCAs: e.s.PKI.CAPool()}
	aliceWatch := e.openWatch(tc, token, "/api/v1/namespaces/default/configmaps?watch=1")
	pi1 := e.join("pi-1")
	nodeWatch := e.openWatch(pi1, "", "/api/v1/nodes?watch=1&fieldSelector=metadata.name%3Dpi-1")
	bystander := e.openWatch(e.admin(), "", "/api/v1/namespaces/default/configmaps?watch=1")

	deleted := time.Now()
	if err := users.DeleteUser(context.Background(), "alice"); err != nil {
		t.Fatal(err)
	}
	if code, body := e.call(e.admin(), http.MethodDelete, "/api/v1/nodes/pi-1", ""); code != http.StatusOK {
		t.Fatalf("delete Node pi-1: got %d %s", code, body)
	}
	for who, ended := range map[string]<-chan struct{}{"alice's watch": aliceWatch, "pi-1's watch": nodeWatch} {
		select {
		case <-ended:
			t.Logf("%s ended %v after the deletion", who, time.Since(deleted).Round(time.Millisecond))
		case <-time.After(15 * time.Second):
			t.Errorf("%s still open 15s after the deletion", who)
		}
	}
	select {
	case <-bystander:
		t.Error("the admin's watch ended too; only revoked credentials' streams may")
	default:
	}
	e.refused("pi-1", pi1)
}

// openWatch starts a watch with tc (and a bearer token when not empty) and
// returns a channel closed when its response body ends.
func (e *revokeEnv) openWatch(tc *tls.Config, token, path string) <-chan struct{} {
	e.t.Helper()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
	e.t.Cleanup(client.CloseIdleConnections)
	req, _ := http.NewRequest(http.MethodGet, e.s.URL+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		e.t.Fatalf("watch %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("watch %s: got %d, want 200", path, resp.StatusCode)
	}
	e.t.Cleanup(func() { resp.Body.Close() })
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
		}
	}()
	return done
}
