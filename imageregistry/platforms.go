package imageregistry

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Defaults for PlatformCacheConfig.
const (
	DefaultPlatformWorkers     = 4
	DefaultPlatformTimeout     = 5 * time.Second
	DefaultPlatformTTL         = time.Hour
	DefaultPlatformNegativeTTL = time.Minute
	// maxNegativeTTL bounds the back-off of an image whose lookups keep
	// failing (an airgapped server asking a registry it cannot reach).
	maxNegativeTTL = 30 * time.Minute
	// maxPlatformEntries bounds the cache; past it, images are not looked
	// up until expired entries make room.
	maxPlatformEntries = 10000
	// maxPlatformQueue bounds the lookups queued or running at once.
	maxPlatformQueue = 256
)

// PlatformCacheConfig configures a PlatformCache; zero values take the
// defaults above.
type PlatformCacheConfig struct {
	// Registries holds the mirrors, plain-HTTP endpoints and logins, as
	// for pulls (the agent's --registries file).
	Registries Config
	Logger     *slog.Logger
	// Workers is how many lookups run at once; Timeout bounds each.
	Workers int
	Timeout time.Duration
	// TTL is how long an answer is trusted; NegativeTTL how long a failed
	// lookup is not retried (doubling per further failure, up to 30 min).
	TTL, NegativeTTL time.Duration
}

// PlatformCache tells which platforms ("linux/arm64", "linux/arm/v7") an
// image is published for, by asking its registry the way a pull would
// (same mirrors, plain-HTTP endpoints and logins): the manifest list's
// entries, or a single manifest's config. It answers from memory only; a
// miss starts a lookup in the background. It has the shape of
// scheduler.ImagePlatforms, plus Pending.
type PlatformCache struct {
	cfg PlatformCacheConfig
	log *slog.Logger
	now func() time.Time
	sem chan struct{}

	mu      sync.Mutex
	entries map[string]*platformEntry
	queued  int
	ctx     context.Context // nil until Start
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// platformEntry is what is known of one image.
type platformEntry struct {
	platforms []string // read-only once stored
	known     bool
	pending   bool      // a lookup is queued or running
	expires   time.Time // look up again after this
	failures  int       // failed lookups in a row
}

// NewPlatformCache checks cfg and builds a cache; lookups begin at Start.
func NewPlatformCache(cfg PlatformCacheConfig) (*PlatformCache, error) {
	if err := cfg.Registries.Validate(); err != nil {
		return nil, err
	}
	if cfg.Workers < 0 || cfg.Timeout < 0 || cfg.TTL < 0 || cfg.NegativeTTL < 0 {
		return nil, errors.New("platform cache config: Workers, Timeout, TTL and NegativeTTL must not be negative")
	}
	cfg.Workers = cmp.Or(cfg.Workers, DefaultPlatformWorkers)
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultPlatformTimeout)
	cfg.TTL = cmp.Or(cfg.TTL, DefaultPlatformTTL)
	cfg.NegativeTTL = cmp.Or(cfg.NegativeTTL, DefaultPlatformNegativeTTL)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &PlatformCache{cfg: cfg, log: cfg.Logger, now: time.Now,
		sem: make(chan struct{}, cfg.Workers), entries: map[string]*platformEntry{}}, nil
}

// Start lets misses start lookups, until ctx ends or Stop.
func (c *PlatformCache) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx != nil {
		return errors.New("platform cache: already started")
	}
	c.ctx, c.cancel = context.WithCancel(ctx)
	return nil
}

// Stop cancels the lookups under way and waits for them.
func (c *PlatformCache) Stop() {
	c.mu.Lock()
	if c.cancel != nil {
		c.cancel()
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// Platforms returns the platforms of image, known false when there is no
// answer yet (a lookup is then started, see Pending) or the last lookup
// failed. It never blocks on I/O. The slice must not be modified.
func (c *PlatformCache) Platforms(image string) ([]string, bool) {
	key, err := NormalizeRef(image)
	if err != nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key]
	if e == nil || (!e.pending && !c.now().Before(e.expires)) {
		e = c.startLookup(key, e)
	}
	if e == nil {
		return nil, false
	}
	return e.platforms, e.known
}

// Pending reports whether a lookup of image is queued or running.
func (c *PlatformCache) Pending(image string) bool {
	key, err := NormalizeRef(image)
	if err != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key]
	return e != nil && e.pending
}

// startLookup queues a lookup of key, unless the cache is not started or
// full. An expired answer is kept meanwhile. The caller holds c.mu.
func (c *PlatformCache) startLookup(key string, e *platformEntry) *platformEntry {
	if c.ctx == nil || c.ctx.Err() != nil || c.queued >= maxPlatformQueue {
		return e
	}
	if e == nil {
		if len(c.entries) >= maxPlatformEntries && !c.sweep() {
			return nil
		}
		e = &platformEntry{}
		c.entries[key] = e
	}
	e.pending = true
	c.queued++
	ctx := c.ctx
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.lookup(ctx, key)
	}()
	return e
}

// sweep drops expired entries; false when none could go. The caller
// holds c.mu.
func (c *PlatformCache) sweep() bool {
	now, dropped := c.now(), false
	for k, e := range c.entries {
		if !e.pending && !now.Before(e.expires) {
			delete(c.entries, k)
			dropped = true
		}
	}
	return dropped
}

// lookup waits for a worker slot, asks the registry and records the answer.
func (c *PlatformCache) lookup(ctx context.Context, key string) {
	var list []string
	var err error
	select {
	case c.sem <- struct{}{}:
		lctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
		list, err = c.fetchPlatforms(lctx, key)
		cancel()
		<-c.sem
	case <-ctx.Done():
		err = ctx.Err()
	}
	c.record(key, list, err)
}

// record stores a lookup's outcome. A failure keeps an earlier answer (a
// registry out of reach does not make a known image unknown) and backs off.
func (c *PlatformCache) record(key string, list []string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queued--
	e := c.entries[key]
	e.pending = false
	now := c.now()
	if err == nil {
		e.platforms, e.known, e.failures = list, true, 0
		e.expires = now.Add(c.cfg.TTL)
		c.log.Debug("image platforms from the registry", "image", key, "platforms", list)
		return
	}
	e.failures++
	ttl := negativeTTL(c.cfg.NegativeTTL, e.failures)
	e.expires = now.Add(ttl)
	c.log.Debug("cannot look up image platforms", "image", key, "err", err, "retry_in", ttl)
}

// negativeTTL is how long an image is not looked up again after its
// failures-th failed lookup in a row: base, doubling, at most 30 min (or
// base, if that is longer).
func negativeTTL(base time.Duration, failures int) time.Duration {
	ttl := base
	for i := 1; i < failures && ttl < maxNegativeTTL; i++ {
		ttl *= 2
	}
	return min(ttl, max(maxNegativeTTL, base))
}
