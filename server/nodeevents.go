package server

import (
	"context"
	"fmt"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/nodeevents"
)

// startNodeEvents writes the events agents report on their events topics
// as core/v1 Events, through the registry.
func (s *Server) startNodeEvents(bg context.Context, bus mqtt.Bus) error {
	in, err := nodeevents.New(nodeevents.Config{Bus: bus, Client: s.Client,
		Events: nodeevents.RegistryEvents(s.Registry), Logger: s.log})
	if err != nil {
		return fmt.Errorf("node events: %w", err)
	}
	if err := in.Start(bg); err != nil {
		return fmt.Errorf("node events: %w", err)
	}
	s.stops = append(s.stops, in.Stop)
	return nil
}
