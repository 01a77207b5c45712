package scheduler

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bramble-edge/bramble/metrics"
)

// attemptResult indexes the scheduler's attempt metrics, looked up once.
type attemptResult int

const (
	resultScheduled attemptResult = iota
	resultUnschedulable
	resultError
)

var (
	attemptCounters  [3]prometheus.Counter
	attemptDurations [3]prometheus.Observer
)

func init() {
	for i, name := range []string{"scheduled", "unschedulable", "error"} {
		attemptCounters[i] = metrics.SchedAttempts.WithLabelValues(name)
		attemptDurations[i] = metrics.SchedAttemptDuration.WithLabelValues(name)
	}
}

// countAttempt counts one scheduling decision that began at start.
func countAttempt(start time.Time, r attemptResult) {
	attemptCounters[r].Inc()
	attemptDurations[r].Observe(time.Since(start).Seconds())
}
