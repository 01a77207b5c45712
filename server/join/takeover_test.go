package join_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/datastore/listwatch"
	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/join"
)

// startPasswordRevoker runs a revoker that also forgets deleted nodes'
// passwords, as the server does.
func startPasswordRevoker(t testing.TB, c *cluster) {
	t.Helper()
	v := join.NewNodeRevoker(c.store, c.registry, listwatch.Config{Logger: quiet(), Backoff: fastBackoff}).WithPasswords(c.passwords)
	if err := v.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Stop)
}

// impostorJoin joins as node from another machine: the same join token,
// a node password of its own.
func impostorJoin(c *cluster, token, node string) (*nodejoin.Credentials, error) {
	return nodejoin.Join(context.Background(), nodejoin.JoinConfig{ServerURL: c.srv.URL, Token: token, NodeName: node,
		NodePassword: strings.Repeat("i", 40)})
}

// A holder of the join token cannot take an existing node's name: the
// join is refused before anything is signed, the refusal says how the
// name can be freed, and the real node keeps working and can re-join.
func TestImpostorCannotTakeANodesName(t *testing.T) {
	c := newCluster(t)
	startPasswordRevoker(t, c)
	token := c.newToken(0)
	real := mustJoin(t, c, token, "pi-1")
	c.createNode("pi-1")
	realCert, _ := real.Certificate()

	fake, err := impostorJoin(c, token, "pi-1")
	if !errors.Is(err, nodejoin.ErrNodePassword) || fake != nil {
		t.Fatalf("impostor join: got credentials %t, error %v; want ErrNodePassword and no credentials", fake != nil, err)
	}
	for _, want := range []string{"node pi-1 already joined with another node password", "kubectl delete node pi-1", "agent/node-password"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	if !c.registry.Valid(context.Background(), "pi-1", realCert.SerialNumber) {
		t.Fatal("the impostor's attempt replaced the real node's certificate")
	}
	if code, body := c.call(nodeTLS(t, real), http.MethodGet, "/api/v1/nodes/pi-1", ""); code != http.StatusOK {
		t.Fatalf("real node after the impostor's attempt: got %d %s, want 200", code, body)
	}

	again := mustJoin(t, c, token, "pi-1") // the real machine, same password
	if code, body := c.call(nodeTLS(t, again), http.MethodGet, "/api/v1/nodes/pi-1", ""); code != http.StatusOK {
		t.Fatalf("real node re-joined: got %d %s, want 200", code, body)
	}

	if code, body := c.call(c.adminTLS(), http.MethodDelete, "/api/v1/nodes/pi-1", ""); code != http.StatusOK {
		t.Fatalf("delete node: %d %s", code, body)
	}
	c.waitPasswordGone("pi-1")
	taken, err := impostorJoin(c, token, "pi-1")
	if err != nil {
		t.Fatalf("join under the deleted node's name: %v", err)
	}
	if _, err := joinNode(t, c, token, "pi-1"); !errors.Is(err, nodejoin.ErrNodePassword) {
		t.Fatalf("the old machine after the name was taken: got %v, want ErrNodePassword", err)
	}
	if code, body := c.call(nodeTLS(t, taken), http.MethodGet, "/api/v1/nodes/pi-1", ""); code != http.StatusNotFound {
		t.Fatalf("new owner of pi-1 reads its (not yet registered) Node: got %d %s, want 404", code, body)
	}
}

// A name joined but not yet registered as a Node is held too, and the
// refusal says to delete the password Secret instead of the Node.
func TestUnregisteredNameIsHeld(t *testing.T) {
	c := newCluster(t)
	token := c.newToken(0)
	mustJoin(t, c, token, "pi-2")
	_, err := impostorJoin(c, token, "pi-2")
	if !errors.Is(err, nodejoin.ErrNodePassword) || !strings.Contains(err.Error(), "kubectl -n kube-system delete secret pi-2.node-password.bramble") {
		t.Fatalf("got %v, want ErrNodePassword saying to delete the password secret", err)
	}
	code, body := c.call(c.adminTLS(), http.MethodGet, "/api/v1/namespaces/kube-system/secrets/pi-2.node-password.bramble", "")
	if code != http.StatusOK || strings.Contains(body, machinePassword("pi-2")) || !strings.Contains(body, `"bramble.io/joined-with-token":"`) {
		t.Fatalf("password secret: got %d %s; want it stored, hashed, labelled with the token", code, body)
	}
	if code, body := c.call(c.adminTLS(), http.MethodDelete, "/api/v1/namespaces/kube-system/secrets/pi-2.node-password.bramble", ""); code != http.StatusOK {
		t.Fatalf("delete password secret: %d %s", code, body)
	}
	if _, err := impostorJoin(c, token, "pi-2"); err != nil {
		t.Fatalf("join after the password was deleted: %v", err)
	}
}

// A Node deleted while no server watched frees its name at the next
// start: the revoker's first list forgets the password.
func TestPasswordOfNodeDeletedWhileNoServerWatched(t *testing.T) {
	c := newCluster(t)
	token := c.newToken(0)
	c.createNode("pi-3")
	mustJoin(t, c, token, "pi-3") // the record notes the Node exists
	if code, body := c.call(c.adminTLS(), http.MethodDelete, "/api/v1/nodes/pi-3", ""); code != http.StatusOK {
		t.Fatalf("delete node: %d %s", code, body)
	}
	if _, err := impostorJoin(c, token, "pi-3"); !errors.Is(err, nodejoin.ErrNodePassword) {
		t.Fatalf("before any revoker ran: got %v, want ErrNodePassword", err)
	}
	startPasswordRevoker(t, c)
	c.waitPasswordGone("pi-3")
	if _, err := impostorJoin(c, token, "pi-3"); err != nil {
		t.Fatalf("join under the name of the Node deleted meanwhile: %v", err)
	}
}

// waitPasswordGone waits for node's password Secret to be deleted (polling
// joins instead would run into the failed-join limiter).
func (c *cluster) waitPasswordGone(node string) {
	c.t.Helper()
	eventually(c.t, "the password of "+node+" to be forgotten", func() bool {
		code, _ := c.call(c.adminTLS(), http.MethodGet, "/api/v1/namespaces/kube-system/secrets/"+join.PasswordSecretName(node), "")
		return code == http.StatusNotFound
	})
}

// Machines racing to be the first under one name: exactly one gets it.
func TestRacingFirstJoinsOneWins(t *testing.T) {
	c := newCluster(t)
	token := c.newToken(0)
	const n = 6
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := nodejoin.Join(context.Background(), nodejoin.JoinConfig{ServerURL: c.srv.URL, Token: token,
				NodeName: "pi-race", NodePassword: fmt.Sprintf("racer-%d-%s", i, strings.Repeat("r", 32))})
			errs <- err
		}()
	}
	won := 0
	for range n {
		switch err := <-errs; {
		case err == nil:
			won++
		case !errors.Is(err, nodejoin.ErrNodePassword):
			t.Errorf("a losing racer: got %v, want ErrNodePassword", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d racers got the name, want exactly 1", won)
	}
}

// A node that joined before node passwords existed (simulated by deleting
// its password Secret) keeps its name while it holds a certificate and
// its Node: a join without the Node deleted first is refused.
func TestNodeFromBeforePasswordsKeepsItsName(t *testing.T) {
	c := newCluster(t)
	startPasswordRevoker(t, c)
	token := c.newToken(0)
	c.createNode("pi-old")
	old := mustJoin(t, c, token, "pi-old")
	path := "/api/v1/namespaces/kube-system/secrets/" + join.PasswordSecretName("pi-old")
	if code, body := c.call(c.adminTLS(), http.MethodDelete, path, ""); code != http.StatusOK {
		t.Fatalf("delete password secret: %d %s", code, body)
	}
	_, err := impostorJoin(c, token, "pi-old")
	if !errors.Is(err, nodejoin.ErrNodePassword) || !strings.Contains(err.Error(), "holds a certificate but no node password") {
		t.Fatalf("join as a node without a password: got %v, want ErrNodePassword saying it holds a certificate", err)
	}
	if code, body := c.call(nodeTLS(t, old), http.MethodGet, "/api/v1/nodes/pi-old", ""); code != http.StatusOK {
		t.Fatalf("the node after the refused join: got %d %s, want 200", code, body)
	}
	if code, body := c.call(c.adminTLS(), http.MethodDelete, "/api/v1/nodes/pi-old", ""); code != http.StatusOK {
		t.Fatalf("delete node: %d %s", code, body)
	}
	eventually(t, "the deleted Node's certificate to be revoked", func() bool {
		code, _ := c.call(nodeTLS(t, old), http.MethodGet, "/api/v1/nodes/pi-old", "")
		return code == http.StatusUnauthorized
	})
	if _, err := impostorJoin(c, token, "pi-old"); err != nil {
		t.Fatalf("join after the Node was deleted: %v", err)
	}
}
