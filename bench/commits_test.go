package bench

import (
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/bramble-edge/bramble/metrics"
)

// commitCount is how many COMMITs (fsyncs of the write-ahead log) the
// datastores of this process made so far: the count of the datastore's
// commit-duration histogram.
func commitCount(b *testing.B) uint64 {
	var m dto.Metric
	if err := metrics.StoreCommit.(prometheus.Metric).Write(&m); err != nil {
		b.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}

// commitSampler samples commitCount every 100 ms until stopped, to find
// the most commits in any one second of a window.
type commitSampler struct {
	stop    chan struct{}
	done    sync.WaitGroup
	samples []uint64
}

func sampleCommits(b *testing.B) *commitSampler {
	s := &commitSampler{stop: make(chan struct{})}
	s.samples = append(s.samples, commitCount(b))
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.samples = append(s.samples, commitCount(b))
			}
		}
	}()
	return s
}

// end stops the sampler and returns the commits in all and the most in
// any 1 s (10 samples) of the window.
func (s *commitSampler) end(b *testing.B) (total, maxPerSecond uint64) {
	close(s.stop)
	s.done.Wait()
	s.samples = append(s.samples, commitCount(b))
	for i := range s.samples {
		j := min(i+10, len(s.samples)-1)
		maxPerSecond = max(maxPerSecond, s.samples[j]-s.samples[i])
	}
	return s.samples[len(s.samples)-1] - s.samples[0], maxPerSecond
}
