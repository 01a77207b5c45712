package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/bramble-edge/bramble/server/leader"
)

// LeaseName is the Lease in kube-system that servers sharing a datastore
// hold to run the scheduler and the controllers.
const LeaseName = "bramble-server"

// startLeading runs the scheduler and the controllers: at once, or with
// --leader-elect only while this server holds the Lease.
func (s *Server) startLeading(bg context.Context, cfg Config) error {
	if !cfg.LeaderElect {
		if !cfg.DisableScheduler {
			if err := s.StartScheduler(); err != nil {
				return err
			}
		}
		if s.newControllers != nil && !cfg.DisableControllers {
			return s.StartControllers()
		}
		return nil
	}
	id, err := leaderIdentity()
	if err != nil {
		return err
	}
	lcfg := leader.Config{Leases: s.Client, Name: LeaseName, Identity: id,
		Log: s.log.With("component", "leader-election")}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := leader.Run(bg, lcfg, func(ctx context.Context) { s.lead(ctx, cfg) }); err != nil {
			s.log.Error("leader election stopped", "err", err)
		}
	}()
	s.stops = append(s.stops, func() { <-done })
	return nil
}

// lead runs the scheduler and the controllers until ctx ends (leadership
// lost, or the server stopping), then stops them.
func (s *Server) lead(ctx context.Context, cfg Config) {
	var stops []func()
	if !cfg.DisableScheduler {
		if sched, err := s.startScheduler(ctx); err != nil {
			s.log.Error("cannot start the scheduler while leading", "err", err)
		} else {
			stops = append(stops, sched.Stop)
		}
	}
	if s.newControllers != nil && !cfg.DisableControllers {
		if set, err := s.startControllers(ctx); err != nil {
			s.log.Error("cannot start the controllers while leading", "err", err)
		} else {
			stops = append(stops, set.Stop)
		}
	}
	<-ctx.Done()
	for i := len(stops) - 1; i >= 0; i-- {
		stops[i]()
	}
}

// leaderIdentity is unique per process: the host name and a random part,
// as Kubernetes' components use.
func leaderIdentity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("leader election identity: %w", err)
	}
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("leader election identity: %w", err)
	}
	return host + "_" + hex.EncodeToString(b), nil
}
