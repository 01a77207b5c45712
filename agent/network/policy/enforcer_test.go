package policy

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/network/nft"
	"github.com/bramble-edge/bramble/mqtt"
)

// countingTx counts the transactions sent through the real table access:
// started when one begins, commits when it has returned (so the table
// then shows it).
type countingTx struct {
	Table
	started atomic.Int32
	commits atomic.Int32
}

func (c *countingTx) ReplaceWithSets(owner nft.Owner, chains []nft.Chain, sets []nft.Set) error {
	c.started.Add(1)
	defer c.commits.Add(1)
	return c.Table.ReplaceWithSets(owner, chains, sets)
}

// lockedSource is a store the test changes while the enforcer reads it.
type lockedSource struct {
	mu sync.Mutex
	m  mapSource
}

func (l *lockedSource) List(resource string) map[mqtt.ObjectRef]json.RawMessage {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.List(resource)
}

func (l *lockedSource) set(ref mqtt.ObjectRef, raw string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m[ref] = json.RawMessage(raw)
}

// TestEnforcerProgramsOnlyWhatChanged: programmed from the store at start,
// again when the store changes, and not when nothing that matters did.
func TestEnforcerProgramsOnlyWhatChanged(t *testing.T) {
	n := newTestNet(t)
	f := openNetns(t, n.node)
	defer f.Close()
	conn, err := nft.Open(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	tx := &countingTx{Table: conn}
	src := &lockedSource{m: storeFixture()}
	e := NewEnforcer(NewApplier(Config{Table: tx}), src, func() []Pod { return []Pod{webPod()} }, nil)
	e.Start(context.Background())
	defer e.Stop()
	waitCommits(t, tx, 1)
	e.Changed() // nothing changed: no transaction
	time.Sleep(200 * time.Millisecond)
	if got := tx.started.Load(); got != 1 {
		t.Fatalf("after a Changed with nothing new: got %d transactions, want 1", got)
	}
	src.set(mqtt.ObjectRef{Resource: mqtt.ResourcePeerPods, Namespace: "prod", Name: "client2"},
		`{"metadata":{"namespace":"prod","name":"client2","labels":{"role":"client"}},"ips":["10.0.1.9"]}`)
	e.Changed()
	waitCommits(t, tx, 2)
	out, err := exec.Command("ip", "netns", "exec", n.node, "nft", "list", "table", "inet", TableName).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "10.0.1.9") {
		t.Fatalf("after a new peer: got\n%s(%v)\nwant 10.0.1.9 in a set", out, err)
	}
}

func waitCommits(t *testing.T, tx *countingTx, want int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for tx.commits.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for transaction %d (got %d)", want, tx.commits.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRelevant(t *testing.T) {
	for _, tc := range []struct {
		res  string
		want bool
	}{{"pods", true}, {"peerpods", true}, {"networkpolicies", true}, {"namespaces", true}, {"configmaps", false}, {"secrets", false}} {
		if got := Relevant([]mqtt.Change{{ObjectRef: mqtt.ObjectRef{Resource: tc.res}}}); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.res, got, tc.want)
		}
	}
}
