package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
)

// GC tears down the sandboxes of pods keep does not want (pods deleted
// while the agent was down) and clears what a crash can leave behind:
// pinned namespaces without a record and, for bramble's own network,
// host-local addresses no record holds. Run it at start, before Setup.
func (m *Manager) GC(ctx context.Context, keep func(uid string) bool) error {
	uids, err := m.records()
	if err != nil {
		return fmt.Errorf("list sandboxes: %w", err)
	}
	known := map[string]bool{}
	var errs []error
	for _, uid := range uids {
		if keep(uid) {
			known[uid] = true
			continue
		}
		m.log.Info("removing sandbox of a pod no longer wanted", "pod_uid", uid)
		if err := m.Teardown(ctx, uid); err != nil {
			known[uid] = true // its address is still held: leave it
			errs = append(errs, err)
		}
	}
	for _, kind := range []nsKind{netNS, utsNS} {
		errs = append(errs, m.sweepNS(kind, known))
	}
	m.mu.Lock()
	own := m.own
	m.mu.Unlock()
	if own {
		errs = append(errs, m.sweepIPAM(known))
	}
	return errors.Join(errs...)
}

// sweepNS removes pinned namespaces of pods without a record.
func (m *Manager) sweepNS(kind nsKind, known map[string]bool) error {
	ents, err := os.ReadDir(m.cfg.runDir(kind))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	var errs []error
	for _, e := range ents {
		if !known[e.Name()] {
			errs = append(errs, removeNS(filepath.Join(m.cfg.runDir(kind), e.Name())))
		}
	}
	return errors.Join(errs...)
}

// sweepIPAM frees host-local addresses whose holder (the container ID,
// a pod UID) has no record: an ADD cut short before its record was
// written, or a record removed by hand.
func (m *Manager) sweepIPAM(known map[string]bool) error {
	dir := filepath.Join(m.cfg.IPAMDir(), NetworkName)
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		if _, err := netip.ParseAddr(e.Name()); err != nil {
			continue // host-local's lock and last_reserved_ip files
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		holder, _, _ := strings.Cut(strings.ReplaceAll(string(data), "\r", ""), "\n")
		if !known[strings.TrimSpace(holder)] {
			m.log.Info("freeing an address no pod holds", "ip", e.Name(), "holder", holder)
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
