package server

import (
	"context"
	"path/filepath"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/satoken"
	"github.com/bramble-edge/bramble/server/serviceaccounts"
)

// serviceAccountTokens loads the ServiceAccount signing key from
// <data-dir>/server/tls and publishes its public half in the datastore.
// Bound objects are read through the registry, once it exists.
func (s *Server) serviceAccountTokens(ctx context.Context, cfg Config) (*satoken.Tokens, error) {
	return satoken.New(ctx, satoken.Config{Dir: filepath.Join(cfg.serverDir(), "tls"), Store: s.Store,
		Objects: registryObjects{s}, MaxTTL: cfg.ServiceAccountMaxTokenExpiration, Logger: s.log.With("component", "serviceaccount-tokens")})
}

// registryObjects reads through s.Registry, which is made after the
// authenticator that needs the tokens.
type registryObjects struct{ s *Server }

func (r registryObjects) Get(ctx context.Context, res *api.Resource, ns, name string) (api.Object, error) {
	return r.s.Registry.Get(ctx, res, ns, name)
}

// startServiceAccountController keeps every namespace's default
// ServiceAccount and kube-root-ca.crt, and fills legacy token Secrets.
func (s *Server) startServiceAccountController(ctx context.Context, tokens *satoken.Tokens) {
	c := serviceaccounts.NewController(s.Registry, serviceaccounts.ControllerConfig{Cache: s.Cache,
		CAPEM: s.PKI.BundlePEM(), Tokens: tokens, Log: s.log.With("component", "serviceaccounts")})
	c.Start(ctx)
	s.stops = append(s.stops, c.Stop)
}
