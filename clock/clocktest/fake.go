// Package clocktest holds the fake clock tests move by hand.
package clocktest

import (
	"context"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/clock"
)

// Fake is a clock.Clock that moves only when told to (Advance) or slept on
// (Sleep). Safe for concurrent use.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

var _ clock.Clock = (*Fake)(nil)

// NewFake returns a fake clock showing start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

// Now is the fake time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After delivers the fake time once Advance has moved it d on (at once
// when d <= 0).
func (c *Fake) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, waiter{at: c.now.Add(d), ch: ch})
	return ch
}

// Advance moves the time on by d and fires the waits that are due.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	c.waiters = kept
}

// Sleep advances the clock by d instead of waiting.
func (c *Fake) Sleep(_ context.Context, d time.Duration) error {
	c.Advance(d)
	return nil
}

// Waiters is the number of After calls not yet fired.
func (c *Fake) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}
