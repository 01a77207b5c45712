package datastore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// benchStore opens a store on the real disk (/var/tmp, not a tmpfs), so
// every commit pays a real fsync.
func benchStore(b *testing.B, cfg datastore.SQLiteConfig) *datastore.SQLite {
	b.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "bramble-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	cfg.CompactInterval = -1
	st, err := datastore.OpenSQLite(context.Background(), filepath.Join(dir, "state.db"), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// BenchmarkWrites64 measures acknowledged writes per second from 64
// concurrent writers (1 KiB creates), fsync on: on the disk as it is, and
// with 10 ms added inside every commit (a slow SD card).
func BenchmarkWrites64(b *testing.B) {
	b.Run("disk", func(b *testing.B) { benchWrites(b, datastore.SQLiteConfig{}) })
	b.Run("commit+10ms", func(b *testing.B) {
		benchWrites(b, datastore.SQLiteConfig{CommitHook: func() { time.Sleep(10 * time.Millisecond) }})
	})
}

func benchWrites(b *testing.B, cfg datastore.SQLiteConfig) {
	var commits atomic.Int64
	hook := cfg.CommitHook
	cfg.CommitHook = func() {
		commits.Add(1)
		if hook != nil {
			hook()
		}
	}
	st := benchStore(b, cfg)
	ctx := context.Background()
	value := make([]byte, 1024)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				if _, err := st.Create(ctx, fmt.Sprintf("/bench/w/%09d", i), value); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "writes/s")
	b.ReportMetric(float64(b.N)/float64(commits.Load()), "writes/commit")
}

// populate writes n keys of 1 KiB under prefix, 64 at a time.
func populate(b *testing.B, st datastore.Store, prefix string, n int) {
	b.Helper()
	value := make([]byte, 1024)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				if _, err := st.Create(context.Background(), fmt.Sprintf("%s%06d", prefix, i), value); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkList10k lists 10,000 objects of ~1 KiB: in one call, and in
// pages of 500 as kubectl and informers do; at the latest revision (read
// from the current-state table) and at an older one (from the log, as
// later pages are once writes came in after the first).
func BenchmarkList10k(b *testing.B) {
	st := benchStore(b, datastore.SQLiteConfig{})
	populate(b, st, "/bench/list/", 10000)
	populate(b, st, "/bench/other/", 2000)
	ctx := context.Background()
	old, _ := st.CurrentRevision(ctx)
	if _, err := st.Create(ctx, "/bench/other/newer", nil); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		limit int64
		rev   int64
	}{{"all", 0, 0}, {"pages-of-500", 500, 0}, {"all,old-revision", 0, old}, {"pages-of-500,old-revision", 500, old}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				n, opts := 0, datastore.ListOptions{Limit: tc.limit, Revision: tc.rev}
				for {
					res, err := st.List(ctx, "/bench/list/", opts)
					if err != nil {
						b.Fatal(err)
					}
					n += len(res.Items)
					opts.Revision = 0 // the token carries it
					if opts.Continue = res.Continue; opts.Continue == "" {
						break
					}
				}
				if n != 10000 {
					b.Fatalf("listed %d objects, want 10000", n)
				}
			}
			b.ReportMetric(float64(b.N*10000)/b.Elapsed().Seconds(), "objects/s")
		})
	}
}

// BenchmarkWatchFanout100 times one write until all 100 watchers of its
// key received it (commit and fsync included), with 400 more watchers on
// other prefixes.
func BenchmarkWatchFanout100(b *testing.B) {
	st := benchStore(b, datastore.SQLiteConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	received := make(chan struct{}, 1000)
	for i := range 500 {
		prefix := fmt.Sprintf("/bench/other-%d/", i) // no match
		if i < 100 {
			prefix = []string{"/bench/", "/bench/fan/", "/bench/fan/ns/", "/bench/fan/ns/k"}[i%4]
		}
		ch, err := st.Watch(ctx, prefix, 0)
		if err != nil {
			b.Fatal(err)
		}
		go func() {
			for evs := range ch {
				for range evs {
					received <- struct{}{}
				}
			}
		}()
	}
	rev, err := st.Create(ctx, "/bench/fan/ns/k", []byte("0"))
	if err != nil {
		b.Fatal(err)
	}
	drain(b, received, 100)
	value := make([]byte, 1024)
	for b.Loop() {
		if rev, err = st.Update(ctx, "/bench/fan/ns/k", value, rev); err != nil {
			b.Fatal(err)
		}
		drain(b, received, 100)
	}
}

func drain(b *testing.B, ch <-chan struct{}, n int) {
	for range n {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			b.Fatal("a watcher missed an event")
		}
	}
}
