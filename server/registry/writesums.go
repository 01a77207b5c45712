package registry

import (
	"hash/maphash"
	"sync"
)

// maxWriteSums bounds the fingerprints a registry keeps (about 24 bytes
// each, so under 1 MiB); past it they are all dropped, which only sends
// the next update of each object through the datastore read once.
const maxWriteSums = 1 << 15

// writeSums remembers, for the latest value this registry wrote to a key,
// a fingerprint of the stored bytes, by the revision of that write. An
// update that starts from the shared cache's object at that revision
// compares its encoding with the fingerprint to learn, without reading
// the datastore, that it changes something (so it must be written, with
// a revision check). Equal fingerprints (or none) prove nothing: such an
// update takes the read-modify-write path, which compares bytes.
type writeSums struct {
	seed maphash.Seed
	mu   sync.Mutex
	sums map[int64]writeSum
}

// writeSum is the fingerprint of a key's value as written at a revision.
type writeSum struct {
	key, value uint64
}

func newWriteSums() *writeSums {
	return &writeSums{seed: maphash.MakeSeed(), sums: map[int64]writeSum{}}
}

// note records that key was written with data at rev, replacing the value
// it had at prev (0: none).
func (w *writeSums) note(key string, prev, rev int64, data []byte) {
	s := writeSum{key: maphash.String(w.seed, key), value: maphash.Bytes(w.seed, data)}
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.sums, prev)
	if len(w.sums) >= maxWriteSums {
		clear(w.sums)
	}
	w.sums[rev] = s
}

// known reports whether key's value at rev has a fingerprint.
func (w *writeSums) known(key string, rev int64) bool {
	w.mu.Lock()
	s, ok := w.sums[rev]
	w.mu.Unlock()
	return ok && s.key == maphash.String(w.seed, key)
}

// differs reports whether data is certainly not key's value at rev: the
// value's fingerprint is known and data's is another. False when it may
// be the same value, or rev's value is not known.
func (w *writeSums) differs(key string, rev int64, data []byte) bool {
	w.mu.Lock()
	s, ok := w.sums[rev]
	w.mu.Unlock()
	return ok && s.key == maphash.String(w.seed, key) && s.value != maphash.Bytes(w.seed, data)
}

// forget drops the fingerprint of key's value at rev (it was deleted).
func (w *writeSums) forget(rev int64) {
	w.mu.Lock()
	delete(w.sums, rev)
	w.mu.Unlock()
}
