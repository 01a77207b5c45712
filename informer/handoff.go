package informer

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bramble-edge/bramble/api"
)

// The registry encodes each object it writes, and the watch then brings
// the cache those bytes to decode again. Instead, just before a write the
// registry offers the cache its object with the bytes it is about to
// store (Offer); when a watch event brings those very bytes for that key,
// the cache takes a copy of the object made as decoding them would have
// made it (api.StoredCopyReusing), or the object itself from a writer that
// gives it up (Give), and decodes nothing. The offer is made before
// the write because the watch may apply the change before the write's
// caller is told of it. Bytes decide, not revisions: whatever revision
// carries them, equal bytes decode to an equal object.
//
// An offer lives until its event takes it, its write fails, a later offer
// for its key replaces it, the cache applies its revision without it, or
// offerWindow passes; at most maxOffers are held. A relist decodes, as
// before; so does every change without an offer (a kind api.StoredCopy
// declines, a resource nobody in the process follows).

const (
	offerWindow = 2 * time.Second
	maxOffers   = 1024
)

// Offered is one offer; the registry reports its write's outcome to it.
// A nil *Offered (no offer made) ignores the report.
type Offered struct {
	h       *handoff
	applied *atomic.Int64 // the cache's revision
	key     string
	data    []byte // the bytes the write stores
	obj     api.Object
	secs    *api.Sections // data's fingerprints (nil: none kept)
	at      time.Time
	rev     atomic.Int64 // the write's revision, once known
}

// handoff holds the offers not yet taken, by key.
type handoff struct {
	mu      sync.Mutex
	offers  map[string]*Offered
	bytes   int64 // the stored bytes of the offers held
	sweepAt int   // len(offers) at which the next put sweeps

	taken, dropped, peak atomic.Int64
}

// The process's totals over every cache, for benchmarks.
var handoffTaken, handoffPeak, handoffPeakBytes atomic.Int64

// HandoffTotals is how many objects the process's caches took from the
// registry instead of decoding them, and the most offers (and their
// stored bytes) one cache held at once.
func HandoffTotals() (taken, peak, peakBytes int64) {
	return handoffTaken.Load(), handoffPeak.Load(), handoffPeakBytes.Load()
}

// raise sets a to v if v is larger.
func raise(a *atomic.Int64, v int64) {
	for old := a.Load(); v > old && !a.CompareAndSwap(old, v); old = a.Load() {
	}
}

// HandoffStats counts the offers taken in place of a decode, those
// dropped (not taken: replaced, failed, late, or over the bound), those
// held now and the most held at once.
type HandoffStats struct{ Taken, Dropped, Held, Peak int64 }

// Handoffs reports what the hand-off from the registry has done so far.
func (c *Cache) Handoffs() HandoffStats {
	h := &c.handoff
	h.mu.Lock()
	held := int64(len(h.offers))
	h.mu.Unlock()
	return HandoffStats{Taken: h.taken.Load(), Dropped: h.dropped.Load(), Held: held, Peak: h.peak.Load()}
}

// Offer gives the cache obj, an object of res about to be written at key
// as data. The cache copies what it needs before Offer returns, so the
// caller keeps obj: the sections data repeats from the object the cache
// holds are that object's (api.StoredCopyReusing), the others a copy of
// obj's. It is nil when the cache cannot use the offer: the resource is
// not fed by the shared watch or nobody follows it (lazy.go), or obj
// cannot be copied exactly.
func (c *Cache) Offer(res *api.Resource, key string, data []byte, obj api.Object) *Offered {
	st := c.offerable(res)
	if st == nil {
		return nil
	}
	prev, prevSecs := st.held(strings.TrimPrefix(key, st.prefix))
	cp, secs, ok := api.StoredCopyReusing(res, obj, data, prev, prevSecs)
	if !ok {
		return nil
	}
	return c.keep(key, data, cp, secs)
}

// Give is Offer without the copy, for a writer that gives obj up: the
// cache takes obj itself. The caller must neither keep nor change obj once
// Give is called, and obj must already be what decoding data gives (what
// api.StoredCopy makes of it), but for its resourceVersion. It may share
// memory with the object the cache holds for key: the cache changes
// neither. Nil as for Offer.
func (c *Cache) Give(res *api.Resource, key string, data []byte, obj api.Object) *Offered {
	st := c.offerable(res)
	if st == nil || !api.Copyable(res, obj) {
		return nil
	}
	return c.keep(key, data, obj, api.Fingerprints(res, data))
}

// offerable is the state an offer of res goes to; nil when res is not fed
// by the shared watch or nobody follows it.
func (c *Cache) offerable(res *api.Resource) *state {
	if !c.fed.Load() {
		return nil
	}
	st := c.fedBy[res]
	if st == nil || st.quiet() {
		return nil
	}
	return st
}

// keep holds obj, with data's fingerprints secs, for data's event at key.
func (c *Cache) keep(key string, data []byte, obj api.Object, secs *api.Sections) *Offered {
	o := &Offered{h: &c.handoff, applied: &c.rev, key: key, data: data, obj: obj, secs: secs, at: time.Now()}
	c.handoff.put(o, c.rev.Load)
	return o
}

// Written reports the write's outcome: its revision, or its error. The
// offer is withdrawn when the write failed or the cache has applied its
// revision already (taking the offer or not).
func (o *Offered) Written(rev int64, err error) {
	if o == nil {
		return
	}
	if err == nil {
		o.rev.Store(rev)
	}
	if err != nil || o.applied.Load() >= rev {
		o.h.withdraw(o)
	}
}

// put keeps o for its key in place of an older offer; over the bound,
// stale offers are swept first, and o is dropped if none was.
func (h *handoff) put(o *Offered, applied func() int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.offers == nil {
		h.offers = map[string]*Offered{}
	}
	if len(h.offers) >= h.sweepAt {
		h.sweepLocked(applied(), o.at)
		h.sweepAt = max(64, 2*len(h.offers))
	}
	_, replaced := h.offers[o.key]
	switch {
	case replaced:
		h.dropped.Add(1)
	case len(h.offers) >= maxOffers:
		h.dropped.Add(1)
		return
	}
	if prev := h.offers[o.key]; prev != nil {
		h.bytes -= int64(len(prev.data))
	}
	h.offers[o.key] = o
	h.bytes += int64(len(o.data))
	raise(&h.peak, int64(len(h.offers)))
	raise(&handoffPeak, int64(len(h.offers)))
	raise(&handoffPeakBytes, h.bytes)
}

// removeLocked takes key's offer o out. Called with h.mu held.
func (h *handoff) removeLocked(key string, o *Offered) {
	delete(h.offers, key)
	h.bytes -= int64(len(o.data))
}

// take is the offer for key with exactly data, if any; an offer of other
// bytes stays for its own event, unless the revision it was written at is
// already applied (rev: the event's).
func (h *handoff) take(key string, data []byte, rev int64) *Offered {
	h.mu.Lock()
	defer h.mu.Unlock()
	o, ok := h.offers[key]
	if !ok {
		return nil
	}
	if !bytes.Equal(o.data, data) {
		if w := o.rev.Load(); w != 0 && w <= rev {
			h.removeLocked(key, o)
			h.dropped.Add(1)
		}
		return nil
	}
	h.removeLocked(key, o)
	h.taken.Add(1)
	handoffTaken.Add(1)
	return o
}

// withdraw removes o if it is still its key's offer.
func (h *handoff) withdraw(o *Offered) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.offers[o.key] == o {
		h.removeLocked(o.key, o)
		h.dropped.Add(1)
	}
}

// sweep drops the offers whose writes the cache has applied (applied: its
// revision) without taking them, and those older than offerWindow.
func (h *handoff) sweep(applied int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.offers) > 0 {
		h.sweepLocked(applied, time.Now())
	}
}

func (h *handoff) sweepLocked(applied int64, now time.Time) {
	for key, o := range h.offers {
		if w := o.rev.Load(); (w != 0 && w <= applied) || now.Sub(o.at) > offerWindow {
			h.removeLocked(key, o)
			h.dropped.Add(1)
		}
	}
}
