package events

import "time"

// bucket is one object's spam filter: up to Burst tokens, one more every
// Refill. Sending a series' state takes one; a series whose object has
// none waits (its count keeps rising) until the next token.
type bucket struct {
	tokens float64
	at     time.Time
}

// take spends a token of the object named key if it has one at now.
func (r *Recorder) take(key string, now time.Time) bool {
	b := r.buckets[key]
	if b == nil {
		b = &bucket{tokens: float64(r.cfg.Burst), at: now}
		r.buckets[key] = b
	}
	b.tokens = min(float64(r.cfg.Burst), b.tokens+float64(now.Sub(b.at))/float64(r.cfg.Refill))
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// nextToken is how long until the object named key has a token again.
func (r *Recorder) nextToken(key string, now time.Time) time.Duration {
	b := r.buckets[key]
	if b == nil {
		return 0
	}
	have := b.tokens + float64(now.Sub(b.at))/float64(r.cfg.Refill)
	if have >= 1 {
		return 0
	}
	return time.Duration((1 - have) * float64(r.cfg.Refill))
}

// sweepBuckets forgets the buckets that are full again (their objects have
// been quiet for Burst refills): they would start full anyway.
func (r *Recorder) sweepBuckets(now time.Time) {
	full := time.Duration(r.cfg.Burst) * r.cfg.Refill
	for k, b := range r.buckets {
		if now.Sub(b.at) >= full {
			delete(r.buckets, k)
		}
	}
}
