package broker_test

import (
	"crypto/tls"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
)

// newMosquittoSync is a MosquittoSync on m's ACL and pid files.
func newMosquittoSync(t *testing.T, m *mosquitto) *broker.MosquittoSync {
	t.Helper()
	s, err := broker.NewMosquittoSync(broker.MosquittoSyncConfig{ACLFile: filepath.Join(m.dir, "acl"),
		PIDFile: m.pidFile, Server: broker.DefaultServerName, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// TestMosquittoSyncCutsOffDeletedNodes: nodes granted and removed through
// MosquittoSync, as the server does on joins and Node deletions, against
// real mosquitto with the shipped configuration: a node that is removed
// gets nothing more on its live session, others keep theirs, the
// viewers' sections stay, and the server's own section is put back when
// the file lost it.
func TestMosquittoSyncCutsOffDeletedNodes(t *testing.T) {
	env, m := newMosquittoEnv(t)
	m.updateACL(t, func(a *broker.MosquittoACL) { a.Viewers = append(a.Viewers, "dash") })
	if err := broker.UpdateMosquittoACL(filepath.Join(m.dir, "acl"), func(a *broker.MosquittoACL) { a.Servers = nil }); err != nil {
		t.Fatal(err) // not reloaded: the server keeps its rights until the sync's first reload
	}
	s := newMosquittoSync(t, m)
	nodes := map[string]bool{}
	set := func(t testing.TB) {
		n := m.count("Reloading config")
		if err := s.SetNodes(slices.Collect(maps.Keys(nodes))); err != nil {
			t.Fatalf("SetNodes: %v", err)
		}
		m.waitLog(t, "Reloading config", n+1)
		m.barrier(t)
	}
	synced := *env
	synced.addNode = func(t testing.TB, node string) tls.Certificate {
		nodes[node] = true
		set(t)
		return env.ca.nodeCert(t, node)
	}
	synced.revoke = func(t testing.TB, node string) {
		delete(nodes, node)
		set(t)
	}
	testRevokeLiveSession(t, &synced)
	acl, err := broker.ParseMosquittoACL(readFile(t, filepath.Join(m.dir, "acl")))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(acl.Servers, []string{broker.DefaultServerName}) || !slices.Equal(acl.Viewers, []string{"dash"}) || len(acl.Nodes) != 1 {
		t.Errorf("ACL after the sync: servers %v, viewers %v, nodes %v; want the server, dash, and the witness", acl.Servers, acl.Viewers, acl.Nodes)
	}
}

// TestMosquittoSyncBurst: after a burst of joins into a long ACL, each
// signalled at once, the last node gets its subtree without anyone
// signalling again. (The trailing signal that covers a SIGHUP mosquitto
// forgets while reloading is defensive: mosquitto 2.0.11 here read the
// last file every time, with or without it.)
func TestMosquittoSyncBurst(t *testing.T) {
	env, m := newMosquittoEnv(t)
	s := newMosquittoSync(t, m)
	// A long file makes the reload last long enough for the next change
	// to land while it runs.
	var nodes []string
	for i := range 1000 {
		nodes = append(nodes, fmt.Sprintf("pi-fleet-%04d", i))
	}
	for i := range 3 {
		nodes = append(nodes, fmt.Sprintf("pi-burst-%d", i))
		if err := s.SetNodes(nodes); err != nil {
			t.Fatalf("SetNodes: %v", err)
		}
	}
	last := nodes[len(nodes)-1]
	cert := env.ca.nodeCert(t, last)
	deadline := time.Now().Add(waitLong)
	for attempt := 0; ; attempt++ {
		in := newInbox()
		if c, err := dial(t, pahoOptions(env.addr, last, clientTLS(env.ca.CAPool(), &cert), in)); err == nil {
			subscribe(t, c, mqtt.NodeSubtree(last)+"#")
			msg := fmt.Sprintf("try-%d", attempt)
			busPublish(t, env.bus, mqtt.DesiredTopic(last), 1, msg)
			time.Sleep(deliveryGrace)
			c.Disconnect(0)
			if slices.Contains(in.all(), mqtt.DesiredTopic(last)+" "+msg) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still gets nothing %s after the burst; ACL:\n%s", last, waitLong, readFile(t, filepath.Join(m.dir, "acl")))
		}
	}
}

func TestMosquittoSyncNeedsBothFiles(t *testing.T) {
	for _, cfg := range []broker.MosquittoSyncConfig{{ACLFile: "acl"}, {PIDFile: "pid"}} {
		if _, err := broker.NewMosquittoSync(cfg); err == nil || !strings.Contains(err.Error(), "pid file") {
			t.Errorf("NewMosquittoSync(%+v): %v, want an error naming both files", cfg, err)
		}
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
