package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/join"
)

// TestJoinAndRevocation joins a node against the real binary with the
// default token, checks every bad join fails at once with its own error,
// and that deleting the Node refuses its certificate at the API and at the
// embedded broker.
func TestJoinAndRevocation(t *testing.T) {
	s := cluster.StartServer(t)
	raw, err := os.ReadFile(filepath.Join(s.DataDir, "server", "token"))
	if err != nil {
		t.Fatalf("default token: %v", err)
	}
	token := strings.TrimSpace(string(raw))
	ctx := context.Background()
	doJoin := func(tok, node string) (*join.Credentials, error) {
		return join.Join(ctx, join.JoinConfig{ServerURL: s.URL(), Token: tok, NodeName: node, Timeout: 10 * time.Second})
	}

	tok, err := join.ParseToken(token)
	if err != nil {
		t.Fatalf("the server's default token does not parse: %v", err)
	}
	wrongHash, wrongSecret := tok, tok
	wrongHash.CAHash = strings.Repeat("0", len(tok.CAHash))
	wrongSecret.Secret = strings.Repeat("a", len(tok.Secret))
	short := cluster.MustRun(t, cluster.Bin, "token", "create", "--ttl", "1s", "--kubeconfig", s.Kubeconfig)
	deleted := cluster.MustRun(t, cluster.Bin, "token", "create", "--kubeconfig", s.Kubeconfig)
	deletedTok, _ := join.ParseToken(strings.TrimSpace(deleted))
	cluster.MustRun(t, cluster.Bin, "token", "delete", deletedTok.ID, "--kubeconfig", s.Kubeconfig)
	time.Sleep(1500 * time.Millisecond) // let the 1 s token expire
	for _, tc := range []struct {
		name, token string
		want        error
	}{
		{"wrong CA hash", wrongHash.String(), join.ErrCAHashMismatch},
		{"wrong secret", wrongSecret.String(), join.ErrTokenSecret},
		{"expired token", strings.TrimSpace(short), join.ErrTokenExpired},
		{"deleted token", strings.TrimSpace(deleted), join.ErrTokenNotFound},
	} {
		if _, err := doJoin(tc.token, "pi-bad"); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}

	creds, err := doJoin(token, "pi-1")
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	if len(creds.MQTTAddresses) == 0 {
		t.Fatal("the join answer names no MQTT broker")
	}
	tc, err := creds.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	node := cluster.NewClientTLS(t, s.URL(), tc)
	if r := node.Do("POST", "/api/v1/nodes", "application/json", []byte(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"pi-1"}}`)); r.Code != 201 {
		t.Fatalf("node registers its own Node: %d %s", r.Code, r.Body)
	}
	if r := node.Do("POST", "/api/v1/nodes", "application/json", []byte(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"pi-2"}}`)); r.Code != 403 {
		t.Errorf("node registers another node's Node: got %d, want 403: %s", r.Code, r.Body)
	}
	if r := node.Do("GET", "/api/v1/nodes/pi-1", "", nil); r.Code != 200 {
		t.Fatalf("node reads its own Node: %d %s", r.Code, r.Body)
	}
	mq := paho.NewClient(paho.NewClientOptions().AddBroker("tls://127.0.0.1:" + strconv.Itoa(s.MQTTPort)).SetClientID("pi-1").
		SetTLSConfig(tc).SetProtocolVersion(4).SetAutoReconnect(false).SetConnectTimeout(5 * time.Second))
	if tok := mq.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("node connects to the broker: %v", tok.Error())
	}

	s.MustKubectl("delete", "node", "pi-1")
	cluster.WaitFor(t, 10*time.Second, func() bool { return !mq.IsConnectionOpen() }, "the broker to drop the deleted node's session")
	if r := node.Do("GET", "/api/v1/nodes/pi-1", "", nil); r.Code != 401 {
		t.Errorf("deleted node's certificate at the API: got %d, want 401: %s", r.Code, r.Body)
	}
	again := paho.NewClient(paho.NewClientOptions().AddBroker("tls://127.0.0.1:" + strconv.Itoa(s.MQTTPort)).SetClientID("pi-1").
		SetTLSConfig(tc).SetProtocolVersion(4).SetAutoReconnect(false).SetConnectTimeout(5 * time.Second))
	if tok := again.Connect(); tok.WaitTimeout(10*time.Second) && tok.Error() == nil {
		again.Disconnect(0)
		t.Error("the deleted node's certificate still connects to the broker")
	}
}
