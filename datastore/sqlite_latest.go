package datastore

import "time"

// The writer's memory of recent rows is bounded three ways: by keys, by
// the bytes of their values (one value above latestMaxValue is not kept),
// and in time: the writer forgets all once idle for latestIdle, so an idle
// server holds none of it.
const (
	latestCap      = 4096
	latestBytes    = 8 << 20
	latestMaxValue = 64 << 10
)

// latestIdle is how long the writer waits for work before it forgets; a
// variable for tests.
var latestIdle = 5 * time.Second

// latestCache is the writer's memory of the keys it wrote last: each one's
// live row as the write left it. An update or delete of a remembered key
// checks its revision and takes its previous value from here instead of
// reading current and log, a query and a copy of the value per write. The
// server writes a pod's binding and status within seconds of its create,
// a few thousand writes later at most.
//
// The writer is the only writer of the file while the store is open, so a
// remembered row is the live one as long as the transaction that wrote it
// commits. Writes put rows here as they apply them; a batch that fails
// rolls back and forgets all (see failBatch). Compaction never removes a
// live row, so it leaves the cache true. Only the writer goroutine uses it.
type latestCache struct {
	rows  map[string]latestRow
	ring  []latestPut // puts in order, a circular queue from head
	head  int
	n     int    // puts in ring
	seq   uint64 // counts puts: which put of a key is its newest
	bytes int    // the values' bytes in rows
}

type latestRow struct {
	kv  KeyValue // Value is shared, never written to
	seq uint64
}

type latestPut struct {
	key string
	seq uint64
}

func newLatestCache(n int) *latestCache {
	return &latestCache{rows: make(map[string]latestRow, n), ring: make([]latestPut, n)}
}

// get returns a copy of key's remembered live row. The copy's Value is
// shared with the event that wrote it: values are never modified.
func (c *latestCache) get(key string) (*KeyValue, bool) {
	r, ok := c.rows[key]
	if !ok {
		return nil, false
	}
	kv := r.kv
	return &kv, true
}

// put remembers kv as key's live row, forgetting the oldest puts while
// over a bound. A nil value is stored as empty, as the log column holds it.
func (c *latestCache) put(kv *KeyValue) {
	c.forget(kv.Key)
	if len(kv.Value) > latestMaxValue {
		return
	}
	for c.n == len(c.ring) || c.bytes+len(kv.Value) > latestBytes {
		c.dropOldest()
	}
	c.seq++
	row := latestRow{kv: *kv, seq: c.seq}
	if row.kv.Value == nil {
		row.kv.Value = []byte{}
	}
	c.rows[kv.Key] = row
	c.bytes += len(kv.Value)
	c.ring[(c.head+c.n)%len(c.ring)] = latestPut{key: kv.Key, seq: c.seq}
	c.n++
}

// dropOldest removes the oldest put; its key goes unless a later put
// renewed it.
func (c *latestCache) dropOldest() {
	p := c.ring[c.head]
	c.ring[c.head] = latestPut{}
	c.head = (c.head + 1) % len(c.ring)
	c.n--
	if r, ok := c.rows[p.key]; ok && r.seq == p.seq {
		c.forget(p.key)
	}
}

// forget drops key (deleted: the next lookup finds it absent in the file).
func (c *latestCache) forget(key string) {
	if r, ok := c.rows[key]; ok {
		c.bytes -= len(r.kv.Value)
		delete(c.rows, key)
	}
}

// reset forgets every key: the transaction that put some of them rolled
// back, or the writer is idle.
func (c *latestCache) reset() {
	if c.n == 0 && len(c.rows) == 0 {
		return
	}
	c.rows = make(map[string]latestRow) // no buckets kept for an idle server
	clear(c.ring)
	c.head, c.n, c.bytes = 0, 0, 0
}
