package nodeevents

import "time"

// The series remembered: at most maxSeries, each for seriesTTL after its
// last write (the API's Events live an hour).
const (
	maxSeries  = 20000
	seriesTTL  = time.Hour
	sweepEvery = time.Minute
)

func (in *Ingest) remember(key seriesKey, w *written) {
	w.touched = in.cfg.Now()
	in.mu.Lock()
	defer in.mu.Unlock()
	if _, ok := in.series[key]; !ok && len(in.series) >= maxSeries {
		in.evictOldestLocked()
	}
	in.series[key] = w
}

func (in *Ingest) forget(key seriesKey) {
	in.mu.Lock()
	defer in.mu.Unlock()
	delete(in.series, key)
}

func (in *Ingest) evictOldestLocked() {
	var oldKey seriesKey
	var oldest time.Time
	for k, w := range in.series {
		if oldest.IsZero() || w.touched.Before(oldest) {
			oldKey, oldest = k, w.touched
		}
	}
	delete(in.series, oldKey)
}

// sweep forgets series not written for seriesTTL, and the rate limits of
// nodes that have been quiet long enough to be full again.
func (in *Ingest) sweep(now time.Time) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for k, w := range in.series {
		if now.Sub(w.touched) > seriesTTL {
			delete(in.series, k)
		}
	}
	full := time.Duration(float64(in.cfg.Burst) / in.cfg.WritesPerSecond * float64(time.Second))
	for n, l := range in.limits {
		if now.Sub(l.at) > full {
			delete(in.limits, n)
		}
	}
}

// limit is one node's token bucket of Event writes.
type limit struct {
	tokens float64
	at     time.Time
}

// allow spends one of node's write tokens if it has one.
func (in *Ingest) allow(node string) bool {
	now := in.cfg.Now()
	in.mu.Lock()
	defer in.mu.Unlock()
	l := in.limits[node]
	if l == nil {
		l = &limit{tokens: float64(in.cfg.Burst), at: now}
		in.limits[node] = l
	}
	l.tokens = min(float64(in.cfg.Burst), l.tokens+now.Sub(l.at).Seconds()*in.cfg.WritesPerSecond)
	l.at = now
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}
