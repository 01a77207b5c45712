package datastore_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// BenchmarkWriteCost measures what one write costs the process in CPU,
// the figure the server's CPU per pod is made of, in the shapes the server
// writes: updates of 2 KiB values (each read back for the event's PrevKV)
// from one writer (a commit per write) and from 8 (small group commits, as
// a busy server makes them), and creates from 8. One watcher takes every
// event, as the server's shared cache does. Besides ns/op and allocs/op it
// reports cpu-us/write: user plus system time of the whole process
// (writer, SQLite, fsync's system time, callers, watcher) per write; and
// written-KiB/write: the bytes handed to write calls per write (WAL frames
// and checkpoint copies), a count that does not move with the load.
func BenchmarkWriteCost(b *testing.B) {
	for _, tc := range []struct {
		name    string
		writers int
		update  bool
	}{{"update,1-writer", 1, true}, {"update,8-writers", 8, true}, {"create,8-writers", 8, false}} {
		b.Run(tc.name, func(b *testing.B) { benchWriteCost(b, tc.writers, tc.update) })
	}
}

func benchWriteCost(b *testing.B, writers int, update bool) {
	st := benchStore(b, datastore.SQLiteConfig{})
	populate(b, st, "/bench/cost/", 5000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := watchAll(b, ctx, st, "/bench/cost/", b.N)
	value := make([]byte, 2048)
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	before, wbefore := cpuTime(), writtenBytes(b)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rev int64
			for i := w; i < b.N; i += writers {
				var err error
				if rev, err = costWrite(ctx, st, update, w, i, rev, value); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	waitEvents(b, events)
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "cpu-us/write")
	b.ReportMetric(float64(writtenBytes(b)-wbefore)/1024/float64(b.N), "written-KiB/write")
}

// costWrite creates a new key i, or updates key w at rev (its writer's
// last write; 0 reads it first).
func costWrite(ctx context.Context, st *datastore.SQLite, update bool, w, i int, rev int64, value []byte) (int64, error) {
	if !update {
		return st.Create(ctx, fmt.Sprintf("/bench/cost/new/%09d", i), value)
	}
	key := fmt.Sprintf("/bench/cost/%06d", w+1)
	if rev == 0 {
		kv, err := st.Get(ctx, key)
		if err != nil {
			return 0, err
		}
		rev = kv.ModRevision
	}
	return st.Update(ctx, key, value, rev)
}

// watchAll returns a channel closed once a watcher of prefix, opened at
// the current revision, has received n events.
func watchAll(b *testing.B, ctx context.Context, st datastore.Store, prefix string, n int) <-chan struct{} {
	rev, err := st.CurrentRevision(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ch, err := st.Watch(ctx, prefix, rev)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		got := 0
		for evs := range ch {
			if got += len(evs); got >= n {
				close(done)
				return
			}
		}
	}()
	return done
}

func waitEvents(b *testing.B, done <-chan struct{}) {
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		b.Fatal("the watcher missed events (cut off, or too slow)")
	}
}

// cpuTime is the process's user plus system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGet reads one key of 1 KiB with a cancellable context, as the
// registry reads the current object before every write it makes.
func BenchmarkGet(b *testing.B) {
	st := benchStore(b, datastore.SQLiteConfig{})
	populate(b, st, "/bench/get/", 1000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := st.Get(ctx, fmt.Sprintf("/bench/get/%06d", i%1000+1)); err != nil {
			b.Fatal(err)
		}
	}
}

// writtenBytes is what the process has handed to write system calls so far
// (wchar of /proc/self/io): the WAL's frames, the checkpoints' copies into
// the database file, everything else the process writes. Unlike CPU time
// it does not depend on the machine's load.
func writtenBytes(b *testing.B) int64 {
	b.Helper()
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		b.Fatalf("read written bytes: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatalf("read written bytes: wchar %q: %v", v, err)
			}
			return n
		}
	}
	b.Fatalf("read written bytes: no wchar in /proc/self/io")
	return 0
}
