package datastore

// latestCap bounds how many keys the writer remembers. The server writes
// a pod's binding and status within seconds of its create, a few thousand
// writes later at most; 4096 entries of a few KiB each keep those.
const latestCap = 4096

// latestCache is the writer's memory of the keys it wrote last: each one's
// live row as the write left it. An update or delete of a remembered key
// checks its revision and takes its previous value from here instead of
// reading current and log, a query and a copy of the value per write.
//
// The writer is the only writer of the file while the store is open, so a
// remembered row is the live one as long as the transaction that wrote it
// commits. Writes put rows here as they apply them; a batch that fails
// rolls back and forgets all (see commitWrites). Compaction never removes
// a live row, so it leaves the cache true. Only the writer goroutine uses
// it.
type latestCache struct {
	rows map[string]latestRow
	ring []string // keys in the order they were put, oldest at next
	next int      // where the next key goes in ring (once it is full)
	seq  uint64   // counts puts: which put of a key is its newest
}

type latestRow struct {
	kv  KeyValue // Value is shared, never written to
	seq uint64
}

func newLatestCache(n int) *latestCache {
	return &latestCache{rows: make(map[string]latestRow, n), ring: make([]string, 0, n)}
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

// put remembers kv as key's live row, forgetting the oldest key once the
// cache holds latestCap puts. A nil value is stored as empty, as the log
// column holds it.
func (c *latestCache) put(kv *KeyValue) {
	c.seq++
	row := latestRow{kv: *kv, seq: c.seq}
	if row.kv.Value == nil {
		row.kv.Value = []byte{}
	}
	c.rows[kv.Key] = row
	if len(c.ring) < cap(c.ring) {
		c.ring = append(c.ring, kv.Key)
		return
	}
	// The oldest put leaves; its key stays only if a later put renewed it.
	old := c.ring[c.next]
	if r, ok := c.rows[old]; ok && r.seq <= c.seq-uint64(len(c.ring)) {
		delete(c.rows, old)
	}
	c.ring[c.next] = kv.Key
	c.next = (c.next + 1) % len(c.ring)
}

// forget drops key (deleted: the next lookup finds it absent in the file).
func (c *latestCache) forget(key string) {
	delete(c.rows, key)
}

// reset forgets every key: the transaction that put some of them rolled
// back.
func (c *latestCache) reset() {
	clear(c.rows)
	clear(c.ring)
	c.ring = c.ring[:0]
	c.next = 0
}
