package apiserver

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/bramble-edge/bramble/server/audit"
	"github.com/bramble-edge/bramble/server/auth"
)

// DefaultRecheckInterval is how often an open stream's credentials are
// checked again when APIConfig.RecheckInterval is 0.
const DefaultRecheckInterval = 2 * time.Second

// RevokedAnnotation marks the audit events of a stream ended because its
// credentials stopped working.
const RevokedAnnotation = "authentication.bramble.dev/revoked"

// untilRevoked gives a long-running request (a watch, a log stream) a
// context that ends when the credentials it came with no longer
// authenticate: a deleted user's token, a deleted node's revoked
// certificate. Upstream checks credentials once per request; a stream
// would outlive its user for as long as it stays open. The check reuses
// the authenticator, which answers from memory (the token index, at most
// its TTL stale; the node certificate registry), every RecheckInterval.
// stop ends the checking.
func (a *API) untilRevoked(r *http.Request, user *auth.User) (_ *http.Request, stop func()) {
	ctx, cancel := context.WithCancel(r.Context())
	orig := r
	go func() {
		t := time.NewTicker(a.recheckEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			_, err := a.authn.Authenticate(orig)
			if errors.Is(err, auth.ErrUnauthenticated) {
				a.log.Info("stream ended: its credentials were revoked", "user", user.Name,
					"path", orig.URL.Path, "err", err)
				audit.Annotate(ctx, RevokedAnnotation, err.Error())
				cancel()
				return
			}
		}
	}()
	return r.WithContext(ctx), cancel
}
