package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/bramble-edge/bramble/server/registry"
)

// TestWatchFromFutureRevisionTimesOut (issue 14): a watch of the changes
// after a resourceVersion the store has not reached (a client that held a
// revision before the datastore was restored from an older snapshot) ends
// after 3 s with upstream's 504 "Too large resource version" in the
// stream, whether the shared cache or the datastore serves it, instead of
// waiting in silence.
func TestWatchFromFutureRevisionTimesOut(t *testing.T) {
	for _, tc := range []struct {
		name string
		tune func(*APIConfig)
	}{
		{"shared cache", func(*APIConfig) {}},
		{"datastore", func(c *APIConfig) { c.Cache = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t, tc.tune)
			cur, _ := e.store.CurrentRevision(context.Background())
			future := cur + 100
			for _, q := range []string{"", "&sendInitialEvents=false&resourceVersionMatch=NotOlderThan"} {
				w := e.watch(t, cmPath+"?watch=true&resourceVersion="+registry.FormatResourceVersion(future)+q, "")
				ev := w.any(t)
				want := fmt.Sprintf("Too large resource version: %d, current: %d", future, cur)
				if ev.Type != "ERROR" || jget(ev.Object, "code") != float64(http.StatusGatewayTimeout) ||
					ev.Object["message"] != want {
					t.Fatalf("watch%s: got %s %v, want an ERROR with the 504 Status %q", q, ev.Type, ev.Object, want)
				}
			}
		})
	}
}
