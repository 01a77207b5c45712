package server

import (
	"context"

	"github.com/bramble-edge/bramble/server/rbac"
)

// startRBAC adds RBAC's escalation check to admission and keeps every
// bramble user's ClusterRoleBinding (users made before RBAC included).
func (s *Server) startRBAC(bg context.Context, authz *rbac.Authorizer) {
	s.Registry.Use(rbac.NewEscalation(authz))
	users := rbac.NewUserBindings(s.Cache, s.Client, s.log.With("component", "user-bindings"))
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() {
		defer close(done)
		users.Run(ctx)
	}()
	s.stops = append(s.stops, func() { cancel(); <-done })
}
