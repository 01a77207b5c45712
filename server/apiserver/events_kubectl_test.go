//go:build kubectl

package apiserver

import (
	"testing"
	"time"

	"github.com/bramble-edge/bramble/api"
)

const coreEventYAML = `apiVersion: v1
kind: Event
metadata: {name: web.poked, namespace: default}
involvedObject: {apiVersion: apps/v1, kind: Deployment, name: web, namespace: default}
reason: Poked
message: poked web
type: Normal
count: 1
source: {component: poker}
`

// TestKubectlGetAndWatchQuietEvents: Events, which nothing in the process
// follows, are kept undecoded by the shared cache until read
// (informer/lazy.go); kubectl get and get -w (plain and with a field
// selector an update stops matching) still see every change.
func TestKubectlGetAndWatchQuietEvents(t *testing.T) {
	k := newKubectlEnv(t)
	if _, ok := k.api.reg.Cache().Serves(api.MustLookup("", "v1", "events")); !ok {
		t.Fatal("the shared cache does not serve events: this test would not reach it")
	}
	all := k.start(t, "get", "events", "--watch-only", "--output-watch-events")
	poked := k.start(t, "get", "events", "--watch-only", "--output-watch-events", "--field-selector", "reason=Poked")
	time.Sleep(time.Second)
	wantContains(t, k.ok(t, coreEventYAML, "create", "-f", "-"), "event/web.poked created")
	all.waitFor(t, "ADDED")
	poked.waitFor(t, "ADDED")
	wantContains(t, k.ok(t, "", "patch", "event", "web.poked", "--type=merge", "-p", `{"count":2}`), "patched")
	all.waitFor(t, "MODIFIED")
	wantContains(t, k.ok(t, "", "get", "events"), "Poked", "deployment/web", "poked web")
	if got := k.ok(t, "", "get", "event", "web.poked", "-o", "jsonpath={.count}"); got != "2" {
		t.Fatalf("count after the patch: got %q, want 2", got)
	}
	// The filtered watch sees the event leave its selector as a deletion.
	wantContains(t, k.ok(t, "", "patch", "event", "web.poked", "--type=merge", "-p", `{"reason":"Prodded"}`), "patched")
	poked.waitFor(t, "DELETED")
	wantContains(t, k.ok(t, "", "delete", "event", "web.poked"), "deleted")
	all.waitFor(t, "DELETED")
	wantContains(t, k.ok(t, "", "get", "events"), "No resources found")
}
