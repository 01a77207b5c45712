package server

import (
	"context"

	"github.com/bramble-edge/bramble/server/diskhealth"
)

// startDiskHealth records Events when the datastore's disk fills up and
// when it can write again (server/diskhealth).
func (s *Server) startDiskHealth(bg context.Context) {
	w := diskhealth.New(s.SQLite, s.Client, diskhealth.Config{Logger: s.log.With("component", "diskhealth")})
	w.Start(bg)
	s.stops = append(s.stops, w.Stop)
}
