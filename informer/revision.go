package informer

import (
	"context"

	"github.com/bramble-edge/bramble/api"
)

// Revision is the datastore revision up to which every change has been
// applied to the informers the cache follows itself.
func (c *Cache) Revision() int64 { return c.rev.Load() }

func (c *Cache) setRevision(rev int64) {
	if rev <= c.rev.Load() {
		return
	}
	c.revMu.Lock()
	c.rev.Store(rev)
	if c.revCh != nil {
		close(c.revCh)
		c.revCh = nil
	}
	c.revMu.Unlock()
}

// WaitForRevision waits until every change up to rev has been applied,
// asking the datastore to confirm progress when no change is on its way.
func (c *Cache) WaitForRevision(ctx context.Context, rev int64) error {
	return c.awaitRevision(ctx, rev, true)
}

// AwaitRevision waits until every change up to rev has been applied,
// without asking the datastore for progress: for a caller that knows a
// change at rev was committed, so the cache's own watch brings it.
func (c *Cache) AwaitRevision(ctx context.Context, rev int64) error {
	return c.awaitRevision(ctx, rev, false)
}

func (c *Cache) awaitRevision(ctx context.Context, rev int64, progress bool) error {
	for {
		c.revMu.Lock()
		if c.revCh == nil {
			c.revCh = make(chan struct{})
		}
		ch := c.revCh
		c.revMu.Unlock()
		if c.rev.Load() >= rev {
			return nil
		}
		if f := c.follower(); f != nil && progress {
			f.RequestProgress()
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (c *Cache) follower() interface{ RequestProgress() } {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	return c.f
}

// Subscribe follows the changes the cache applies to the informers it
// follows itself, starting after revision after (kept changes replayed);
// ok is false when those changes are no longer kept (or the cache has not
// synced): read the datastore's watch instead.
func (c *Cache) Subscribe(after int64) (*Subscription, bool) { return c.hub.subscribe(after) }

// RequestProgress asks for a Progress event on every subscription, at a
// revision every change up to which has been published.
func (c *Cache) RequestProgress() {
	if f := c.follower(); f != nil {
		f.RequestProgress()
	}
}

// Serves reports whether res's informer is fed by the cache's own
// follower and has synced: only then is Read consistent with Revision.
func (c *Cache) Serves(res *api.Resource) (*Informer, bool) {
	c.mu.Lock()
	st, ok := c.byRes[res]
	c.mu.Unlock()
	if !ok || !st.shared {
		return nil, false
	}
	select {
	case <-st.synced:
		return st.handle, true
	default:
		return nil, false
	}
}

// Read runs fn with no change being applied, and tells it the revision
// every change up to which is in the informers.
func (c *Cache) Read(fn func(rev int64)) {
	c.apply.RLock()
	defer c.apply.RUnlock()
	fn(c.rev.Load())
}
