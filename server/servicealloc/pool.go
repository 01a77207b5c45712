package servicealloc

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// holder is the Service an entry of a pool belongs to. pending marks a
// reservation whose write is not over yet.
type holder struct {
	uid             types.UID
	namespace, name string
	pending         bool
	committed       uint64 // the allocator's commit count when it was stored
}

// pool hands out offsets in [first, first+size). Like upstream's
// allocators it keeps a lower band of static offsets (requested by hand,
// like the cluster DNS address) that automatic allocation uses only when
// the upper band is full.
type pool struct {
	first, size int
	static      int // offsets [first, first+static) are the static band
	skip        int // never handed out automatically (the API's address); -1 for none
	used        map[int]holder
}

func newPool(first, size, static, skip int) *pool {
	return &pool{first: first, size: size, static: static, skip: skip, used: map[int]holder{}}
}

func (p *pool) contains(off int) bool { return off >= p.first && off < p.first+p.size }

// reserve takes off for h. It answers true when off is free or already
// h's (fresh is then false), and the current holder when it is not.
func (p *pool) reserve(off int, h holder) (fresh bool, cur holder, ok bool) {
	if c, taken := p.used[off]; taken {
		return false, c, c.uid == h.uid
	}
	p.used[off] = h
	return true, holder{}, true
}

// next reserves a free offset for h, from a random start in the dynamic
// band, then in the static band; false when the pool is full.
func (p *pool) next(h holder) (int, bool) {
	if len(p.used) >= p.size {
		return 0, false
	}
	if off, ok := p.scan(p.first+p.static, p.size-p.static, h); ok {
		return off, true
	}
	return p.scan(p.first, p.static, h)
}

func (p *pool) scan(from, n int, h holder) (int, bool) {
	if n <= 0 {
		return 0, false
	}
	start := rand.IntN(n)
	for i := 0; i < n; i++ {
		off := from + (start+i)%n
		if _, taken := p.used[off]; !taken && off != p.skip {
			p.used[off] = h
			return off, true
		}
	}
	return 0, false
}

// free gives off back if uid holds it.
func (p *pool) free(off int, uid types.UID) {
	if c, ok := p.used[off]; ok && c.uid == uid {
		delete(p.used, off)
	}
}

// commit marks uid's reservation of off as stored, at commit count n.
func (p *pool) commit(off int, uid types.UID, n uint64) {
	if c, ok := p.used[off]; ok && c.uid == uid {
		c.pending, c.committed = false, n
		p.used[off] = c
	}
}

// rebuild replaces the stored entries with those of stored, keeping
// reservations still pending and those committed after count since.
func (p *pool) rebuild(stored map[int]holder, since uint64) {
	for off, h := range p.used {
		if h.pending || h.committed > since {
			stored[off] = h
		}
	}
	p.used = stored
}

// staticBand is upstream's size of the static band of a range of n:
// n/div, at least 16 and at most max (and never the whole range).
func staticBand(n, div, hi int) int {
	return min(max(16, n/div), hi, n)
}

// PortRange is a range of node ports, Base to Base+Size-1.
type PortRange struct{ Base, Size int }

// ParsePortRange reads "30000-32767" (or one port, "30000").
func ParsePortRange(s string) (PortRange, error) {
	lo, hi, found := strings.Cut(strings.TrimSpace(s), "-")
	if !found {
		hi = lo
	}
	a, err1 := strconv.Atoi(strings.TrimSpace(lo))
	b, err2 := strconv.Atoi(strings.TrimSpace(hi))
	if err1 != nil || err2 != nil || a < 1 || b > 65535 || b < a {
		return PortRange{}, fmt.Errorf("--service-node-port-range %q: want FROM-TO, ports between 1 and 65535", s)
	}
	return PortRange{Base: a, Size: b - a + 1}, nil
}

// Contains reports whether port is in the range.
func (r PortRange) Contains(port int) bool { return port >= r.Base && port < r.Base+r.Size }

func (r PortRange) String() string { return fmt.Sprintf("%d-%d", r.Base, r.Base+r.Size-1) }
