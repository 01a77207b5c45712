package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/bramble-edge/bramble/controllers"
)

// ControllerSet is the running control loops (controllers/manager makes
// them). Start returns at once; Stop ends them and waits.
type ControllerSet interface {
	Start(ctx context.Context)
	Stop()
}

// NewControllers makes the control loops from what the server provides.
// The server takes it as a hook rather than importing the controllers,
// whose own tests drive the server's API in process.
type NewControllers func(d controllers.Deps) (ControllerSet, error)

// StartControllers runs the control loops on the datastore, writing through
// the API's admission path. Start does it when Config.Controllers is set
// and --disable-controllers is not.
func (s *Server) StartControllers() error {
	if s.Controllers != nil {
		return errors.New("controllers: already running")
	}
	if s.newControllers == nil {
		return errors.New("controllers: the server was configured without them")
	}
	set, err := s.startControllers(s.bg)
	if err != nil {
		return err
	}
	s.Controllers = set
	s.stops = append(s.stops, set.Stop)
	return nil
}

func (s *Server) startControllers(ctx context.Context) (ControllerSet, error) {
	log := s.log.With("component", "controllers")
	set, err := s.newControllers(controllers.Deps{
		Cache: s.Cache.View(), Client: s.Client, Log: log, PodMetrics: s.podMetrics(),
	})
	if err != nil {
		return nil, fmt.Errorf("controllers: %w", err)
	}
	set.Start(ctx)
	return set, nil
}
