package dns

import (
	"strconv"
	"strings"
	"sync"
	"time"

	mdns "github.com/miekg/dns"
)

// Cache holds forwarded answers until their TTL runs out. It is bounded:
// when full, an expired entry (or, failing that, an arbitrary one) makes
// room. Answers are handed out as copies with their TTLs counted down.
type Cache struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
	max     int
	maxTTL  time.Duration
	now     func() time.Time
}

type cacheEntry struct {
	msg     *mdns.Msg
	stored  time.Time
	expires time.Time
}

// NewCache makes a cache of at most max answers, none kept longer than
// maxTTL whatever its records say.
func NewCache(max int, maxTTL time.Duration, now func() time.Time) *Cache {
	if now == nil {
		now = time.Now
	}
	return &Cache{entries: map[string]cacheEntry{}, max: max, maxTTL: maxTTL, now: now}
}

// cacheKey names a question: name (lower case), type, class and the DO
// and CD bits, which change what an upstream answers.
func cacheKey(req *mdns.Msg) string {
	q := req.Question[0]
	var b strings.Builder
	b.WriteString(strings.ToLower(q.Name))
	b.WriteByte('/')
	b.WriteString(strconv.Itoa(int(q.Qtype)))
	b.WriteByte('/')
	b.WriteString(strconv.Itoa(int(q.Qclass)))
	if o := req.IsEdns0(); o != nil && o.Do() {
		b.WriteString("/do")
	}
	if req.CheckingDisabled {
		b.WriteString("/cd")
	}
	return b.String()
}

// Get is a copy of the cached answer to req, TTLs lowered by its age.
func (c *Cache) Get(req *mdns.Msg) (*mdns.Msg, bool) {
	key := cacheKey(req)
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[key]
	if ok && !now.Before(e.expires) {
		delete(c.entries, key)
		ok = false
	}
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	out := e.msg.Copy()
	age := uint32(now.Sub(e.stored) / time.Second)
	for _, sec := range [][]mdns.RR{out.Answer, out.Ns, out.Extra} {
		for _, rr := range sec {
			if h := rr.Header(); h.Rrtype != mdns.TypeOPT {
				h.Ttl = max(h.Ttl, age) - age
			}
		}
	}
	return out, true
}

// Put keeps resp for its lifetime: the lowest TTL of its answer and
// authority records (for a negative answer, the SOA's own and minimum
// TTL). Failures, truncated answers and answers with no lifetime are not
// kept.
func (c *Cache) Put(req, resp *mdns.Msg) {
	if resp.Truncated || (resp.Rcode != mdns.RcodeSuccess && resp.Rcode != mdns.RcodeNameError) {
		return
	}
	life, ok := lifetime(resp)
	if !ok || life <= 0 {
		return
	}
	life = min(life, c.maxTTL)
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	key := cacheKey(req)
	if _, exists := c.entries[key]; !exists && len(c.entries) >= c.max {
		c.evict(now)
	}
	c.entries[key] = cacheEntry{msg: resp.Copy(), stored: now, expires: now.Add(life)}
}

// evict removes one entry, an expired one when it finds one.
func (c *Cache) evict(now time.Time) {
	victim := ""
	for k, e := range c.entries {
		victim = k
		if !now.Before(e.expires) {
			break
		}
	}
	delete(c.entries, victim)
}

// Len is the number of answers held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func lifetime(resp *mdns.Msg) (time.Duration, bool) {
	found := false
	var low uint32
	for _, sec := range [][]mdns.RR{resp.Answer, resp.Ns} {
		for _, rr := range sec {
			t := rr.Header().Ttl
			if soa, ok := rr.(*mdns.SOA); ok && len(resp.Answer) == 0 {
				t = min(t, soa.Minttl)
			}
			if !found || t < low {
				low, found = t, true
			}
		}
	}
	return time.Duration(low) * time.Second, found
}
