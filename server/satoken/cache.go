package satoken

import (
	"crypto/sha256"
	"sync"
	"time"
)

// verifiedCache keeps the tokens whose signature verified for a short
// while, so a client's repeated requests pay the RSA verification once
// per verifiedTTL; the claims, the keys' trust and the bound objects are
// still checked on every request.
type verifiedCache struct {
	mu sync.Mutex
	m  map[[32]byte]verifiedEntry
}

type verifiedEntry struct {
	p   *parsed
	kid string
	at  time.Time
}

const (
	verifiedTTL = 10 * time.Second
	verifiedMax = 4096 // entries; the map is emptied when full
)

func (c *verifiedCache) get(token string, now time.Time) (*parsed, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[sha256.Sum256([]byte(token))]
	if !ok || now.Sub(e.at) > verifiedTTL || now.Before(e.at) {
		return nil, ""
	}
	return e.p, e.kid
}

func (c *verifiedCache) put(token string, p *parsed, kid string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= verifiedMax {
		c.m = map[[32]byte]verifiedEntry{}
	}
	c.m[sha256.Sum256([]byte(token))] = verifiedEntry{p: p, kid: kid, at: now}
}
