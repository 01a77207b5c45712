package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// The datastore's metrics: what the single writer does.
var (
	StoreWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bramble_datastore_writes_total",
		Help: "Datastore writes by operation (create, update, delete) and result (ok, or the check that failed).",
	}, []string{"operation", "result"})
	StoreBatchSize = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "bramble_datastore_commit_batch_size",
		Help:    "Writes per group commit (one transaction, one fsync).",
		Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
	})
	StoreCommit = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "bramble_datastore_fsync_duration_seconds",
		Help:    "Time of each COMMIT statement, which is where SQLite syncs the write-ahead log to disk.",
		Buckets: fastBuckets,
	})
	StoreCompactions = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "bramble_datastore_compactions_total",
		Help: "Compaction steps that dropped superseded revisions.",
	})
	StoreCompactRev = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "bramble_datastore_compact_revision",
		Help: "The revision the datastore is compacted to.",
	})
	StoreRevision = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "bramble_datastore_revision",
		Help: "The datastore's latest revision.",
	})
	storeMetrics = []prometheus.Collector{StoreWrites, StoreBatchSize, StoreCommit, StoreCompactions, StoreCompactRev, StoreRevision}
)

// The scheduler's metrics, named as upstream's.
var (
	SchedAttempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "scheduler_schedule_attempts_total",
		Help: "Scheduling attempts by result (scheduled, unschedulable, error).",
	}, []string{"result"})
	SchedAttemptDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "scheduler_scheduling_attempt_duration_seconds",
		Help:    "Time to decide a pod's node (filtering and scoring, binding not included) by result.",
		Buckets: fastBuckets,
	}, []string{"result"})
	schedMetrics = []prometheus.Collector{SchedAttempts, SchedAttemptDuration}
)

// The controllers' metrics; name is the controller (its event source).
var (
	QueueDepth = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "workqueue_depth",
		Help: "Keys waiting in a controller's work queue.",
	}, []string{"name"})
	SyncDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "bramble_controller_sync_duration_seconds",
		Help:    "Time of one controller sync of one key, by controller and result (ok, error).",
		Buckets: fastBuckets,
	}, []string{"name", "result"})
	controllerMetrics = []prometheus.Collector{QueueDepth, SyncDuration}
)
