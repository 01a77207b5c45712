package logs

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
)

func metricsRequest(t *testing.T, id, path string) []byte {
	b, err := json.Marshal(mqtt.RPCRequest{ID: id, Kind: mqtt.RPCKindMetrics, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHandlerMetrics: a metrics request is answered with what Metrics
// renders, in window-sized chunks (a body larger than the window waits for
// acks), then EOF; without Metrics it is a 404.
func TestHandlerMetrics(t *testing.T) {
	body := strings.Repeat("some_metric{a=\"b\"} 1\n", 20000) // ~420 KB
	var asked string
	h := newTestHandler(t, Config{Metrics: func(path string) ([]byte, error) { asked = path; return []byte(body), nil }})
	rec := newRecorder(h, true)
	h.Handle(rec, mqtt.RPCRequestTopic(testNode), metricsRequest(t, "m1", "/metrics/cadvisor"))
	got := rec.waitText(t, "eof", func(_ string, last *mqtt.RPCChunk) bool { return last != nil && last.EOF })
	if got != body || asked != "/metrics/cadvisor" {
		t.Fatalf("got %d bytes for %q, want %d for /metrics/cadvisor", len(got), asked, len(body))
	}

	h = newTestHandler(t, Config{})
	rec = newRecorder(h, true)
	h.Handle(rec, mqtt.RPCRequestTopic(testNode), metricsRequest(t, "m2", "/metrics"))
	rec.waitText(t, "a 404", func(_ string, last *mqtt.RPCChunk) bool {
		return last != nil && last.EOF && last.Code == 404 && strings.Contains(last.Error, "serves no metrics")
	})
}
