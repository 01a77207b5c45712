package datastore

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bramble-edge/bramble/metrics"
)

// writeCounters are bramble_datastore_writes_total's children, looked up
// once so counting a write is one atomic add.
var writeCounters = func() map[opKind]map[string]prometheus.Counter {
	m := map[opKind]map[string]prometheus.Counter{}
	for k, op := range map[opKind]string{opCreate: "create", opUpdate: "update", opDelete: "delete"} {
		m[k] = map[string]prometheus.Counter{}
		for _, res := range []string{"ok", "exists", "conflict", "not_found", "error"} {
			m[k][res] = metrics.StoreWrites.WithLabelValues(op, res)
		}
	}
	return m
}()

// countWrite counts one applied write by its kind and outcome.
func countWrite(k opKind, err error) {
	byResult := writeCounters[k]
	if byResult == nil {
		return
	}
	res := "ok"
	switch {
	case err == nil:
	case errors.Is(err, ErrKeyExists):
		res = "exists"
	case errors.Is(err, ErrConflict):
		res = "conflict"
	case errors.Is(err, ErrNotFound):
		res = "not_found"
	default:
		res = "error"
	}
	byResult[res].Inc()
}
