// Package clock is the one time source of the parts whose tests move time
// by hand (the scheduler's queue, the agent's pod workers): they take a
// Clock, production passes Real, tests pass clocktest.Fake. Parts that only
// read the time take a `now func() time.Time` (pass Clock.Now).
package clock

import "time"

// Clock tells the time and waits for it.
type Clock interface {
	Now() time.Time
	// After delivers the time once d has passed.
	After(d time.Duration) <-chan time.Time
}

// Real is the wall clock.
type Real struct{}

var _ Clock = Real{}

// Now is time.Now.
func (Real) Now() time.Time { return time.Now() }

// After is time.After.
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }
