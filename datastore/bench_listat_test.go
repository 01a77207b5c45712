package datastore

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// BenchmarkListAtOldRevision30k lists 30,000 keys as of a revision before
// 3,000 later writes (updates, deletes and creates), as kubectl's continue
// pages do: the first page of 500 and one from the middle. listAt reads
// current and the log after the revision; v1-reader is the query an older
// bramble runs, on the same file without the index (after a rollback) and
// with it (as it was).
func BenchmarkListAtOldRevision30k(b *testing.B) {
	st := openInternal(b, SQLiteConfig{CompactInterval: -1, synchronous: "OFF"})
	rev := populateHistory(b, st, 30000, 3000)
	mid := encodeContinue(rev, fmt.Sprintf("/l/%06d", 15000))
	b.Run("listAt/first-page", func(b *testing.B) { benchList(b, st, ListOptions{Revision: rev, Limit: 500}) })
	b.Run("listAt/middle-page", func(b *testing.B) { benchList(b, st, ListOptions{Limit: 500, Continue: mid}) })
	db, err := openDB(st.path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE INDEX log_key_rev ON log (key, rev)`); err != nil {
		b.Fatal(err)
	}
	b.Run("v1-reader,index/first-page", func(b *testing.B) { benchV1List(b, st, rev) })
	if _, err := db.Exec(`DROP INDEX log_key_rev`); err != nil {
		b.Fatal(err)
	}
	b.Run("v1-reader,no-index/first-page", func(b *testing.B) { benchV1List(b, st, rev) })
}

// populateHistory creates n keys, then makes after more changes
// (updates, and deletes followed by a create of another key), and returns
// the revision before those changes.
func populateHistory(b *testing.B, st *SQLite, n, after int) int64 {
	b.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 16 {
				if _, err := st.Create(ctx, fmt.Sprintf("/l/%06d", i), make([]byte, 512)); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	rev := st.rev.Load()
	for i := range after {
		key := fmt.Sprintf("/l/%06d", i*7%n)
		var err error
		switch i % 3 {
		case 0, 1:
			var kv *KeyValue
			if kv, err = st.Get(ctx, key); err == nil {
				_, err = st.Update(ctx, key, make([]byte, 512), kv.ModRevision)
			}
		case 2:
			if _, _, err = st.Delete(ctx, key, 0); err == nil {
				_, err = st.Create(ctx, key+"x", nil)
			}
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	return rev
}

func benchList(b *testing.B, st *SQLite, opts ListOptions) {
	for b.Loop() {
		res, err := st.List(context.Background(), "/l/", opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Items) != 500 || res.Continue == "" {
			b.Fatalf("got %d items, continue %q; want 500 and a token", len(res.Items), res.Continue)
		}
	}
}

func benchV1List(b *testing.B, st *SQLite, rev int64) {
	for b.Loop() {
		rows, err := st.rdb.Query(listAtV1, "/l/", keyUpperBound("/l/"), rev, 501)
		if err != nil {
			b.Fatal(err)
		}
		items, err := scanKVs(rows)
		if err != nil || len(items) != 501 {
			b.Fatalf("got %d items (%v), want 501", len(items), err)
		}
	}
}
