package datastore

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/mattn/go-sqlite3"
)

// spaceState remembers that write batches failed for lack of disk space,
// so that readiness can say so: a full disk fails writes while reads go
// on, and a server that only checks that it can read looks healthy. It
// clears once a batch committed after the last failure and SpaceGrace has
// passed since that failure.
type spaceState struct {
	mu       sync.Mutex
	since    time.Time // when writes started failing; zero while they succeed
	last     error     // the latest such failure
	lastAt   time.Time
	lastOK   time.Time // the latest batch that committed after a failure
	failures uint64    // every batch that failed for lack of space, ever
}

// After a write failed for lack of space the datastore stays unhealthy for
// SQLiteConfig.SpaceGrace even when a later write succeeds: on a nearly
// full disk small writes still fit in freed pages while larger ones fail,
// and readiness should not flap with them.

// isNoSpace reports whether err is SQLite's "database or disk is full" or
// the operating system's ENOSPC.
func isNoSpace(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) && se.Code == sqlite3.ErrFull {
		return true
	}
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, ErrNoSpace)
}

// translateNoSpace marks a write error caused by a full disk with
// ErrNoSpace, keeping the driver's words, and records it.
func (s *SQLite) translateNoSpace(err error) error {
	if !isNoSpace(err) {
		return err
	}
	s.space.mu.Lock()
	defer s.space.mu.Unlock()
	if s.space.since.IsZero() {
		s.space.since = time.Now()
		s.log.Error("datastore writes fail: the disk is full", "path", s.path, "err", err)
	}
	s.space.last, s.space.lastAt = err, time.Now()
	s.space.failures++
	return fmt.Errorf("%w: %w", ErrNoSpace, err)
}

// wroteOK notes a batch that committed while writes were failing.
func (s *SQLite) wroteOK() {
	s.space.mu.Lock()
	defer s.space.mu.Unlock()
	if !s.space.since.IsZero() {
		s.space.lastOK = time.Now()
	}
}

// Health is nil while the datastore can write, else why it cannot: its
// disk was full at the last write (ErrNoSpace, since when, and the error;
// not the path, which the log has: readiness is public).
func (s *SQLite) Health() error {
	if s.closed.Load() {
		return ErrClosed
	}
	s.space.mu.Lock()
	defer s.space.mu.Unlock()
	sp := &s.space
	if sp.since.IsZero() {
		return nil
	}
	if sp.lastOK.After(sp.lastAt) && time.Since(sp.lastAt) > s.cfg.SpaceGrace {
		s.log.Info("datastore writes succeed again", "path", s.path, "failedFor", sp.lastOK.Sub(sp.since).Round(time.Second))
		sp.since, sp.last = time.Time{}, nil
		return nil
	}
	return fmt.Errorf("%w: writes have failed since %s: %v", ErrNoSpace,
		s.space.since.UTC().Format(time.RFC3339), s.space.last)
}

// SpaceFailures counts the write batches that ever failed for lack of disk
// space, so a watcher polling now and then sees each episode, however short.
func (s *SQLite) SpaceFailures() uint64 {
	s.space.mu.Lock()
	defer s.space.mu.Unlock()
	return s.space.failures
}
