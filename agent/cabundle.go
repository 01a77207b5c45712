package agent

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/bramble-edge/bramble/durable"
	"github.com/bramble-edge/bramble/join"
)

// DefaultCABundleInterval is how often the agent asks the server for the
// CAs to trust (--ca-bundle-interval).
const DefaultCABundleInterval = 5 * time.Minute

// watchBundle asks the server for its CA bundle at start and every
// interval (0: DefaultCABundleInterval) until ctx ends (docs/CERTIFICATES.md, rotate-ca). A bundle that
// differs from ca.crt and holds the CA that signed the node's certificate
// is saved and trusted from the next handshake of every client on; the
// agent then asks again at once, which tells the server it holds it. A
// certificate not signed by the bundle's first CA (the one the server
// signs with) is renewed at once.
func (r *renewal) watchBundle(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultCABundleInterval
	}
	for {
		wait := interval
		changed, err := r.bundleOnce(ctx)
		switch {
		case err != nil:
			r.log.Warn("CA bundle from the server not taken", "err", err, "retry", interval)
		case changed:
			wait = 0
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// bundleOnce fetches the bundle once and takes it when it is new.
func (r *renewal) bundleOnce(ctx context.Context) (bool, error) {
	creds := r.creds()
	held := r.roots.CAs()
	bundle, err := join.FetchBundle(ctx, r.http, creds.ServerURL, held)
	if err != nil {
		return false, ctxOr(ctx, err)
	}
	cert, err := creds.Certificate()
	if err != nil {
		return false, err
	}
	changed := join.BundleHash(bundle) != join.BundleHash(held)
	if changed {
		if err := join.AcceptBundle(bundle, held, cert); err != nil {
			return false, err
		}
	}
	if !join.SignedByFirst(bundle, cert) {
		r.renewSoon()
	}
	if !changed {
		return false, nil
	}
	if err := r.saveBundle(join.EncodeBundle(bundle)); err != nil {
		return false, err
	}
	r.log.Info("CA bundle updated: the server is trusted under these CAs", "cas", subjects(bundle))
	return true, nil
}

// saveBundle writes ca.crt atomically and swaps the roots of every client.
func (r *renewal) saveBundle(pem []byte) error {
	r.saveMu.Lock()
	defer r.saveMu.Unlock()
	if err := durable.WriteFile(filepath.Join(r.dir, join.CAFile), pem, 0o644); err != nil {
		return fmt.Errorf("save CA bundle: %w", err)
	}
	if err := durable.SyncDir(r.dir); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("save CA bundle: %w", err)
	}
	if err := r.roots.Set(pem); err != nil {
		return err
	}
	r.mu.Lock()
	next := *r.cur
	next.CACertPEM = pem
	r.cur = &next
	r.mu.Unlock()
	return nil
}

// ctxOr is err, or nil once ctx has ended (the agent is stopping).
func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func subjects(cas []*x509.Certificate) []string {
	out := make([]string, 0, len(cas))
	for _, c := range cas {
		out = append(out, c.Subject.CommonName)
	}
	return out
}
