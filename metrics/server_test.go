package metrics

import "testing"

// TestServerRegistry checks that the lazily built registry holds the
// runtime collectors, the package's metrics and the broker's, and that
// every call returns the same registry (what /metrics serves).
func TestServerRegistry(t *testing.T) {
	if first, again := Server(), Server(); first != again {
		t.Fatal("Server returned two registries")
	}
	families, err := Server().Gather()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range families {
		have[f.GetName()] = true
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total",
		"bramble_datastore_revision", "bramble_mqtt_slow_clients_dropped_total"} {
		if !have[name] {
			t.Errorf("Server gathers no %s", name)
		}
	}
}
