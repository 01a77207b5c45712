package join

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// FetchBundle asks the server for the CAs to trust (GET CABundlePath),
// saying which it holds now, over client, which must present the node's
// current certificate and verify the server. The answer is parsed, not
// yet checked against what the node trusts (AcceptBundle does that).
func FetchBundle(ctx context.Context, client *http.Client, serverURL string, held []*x509.Certificate) ([]*x509.Certificate, error) {
	ctx, cancel := context.WithTimeout(ctx, defaultTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(serverURL, "/")+CABundlePath, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", CABundlePath, err)
	}
	req.Header.Set(BundleHashHeader, BundleHash(held))
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", CABundlePath, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxCABytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: read answer: %w", CABundlePath, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %w", CABundlePath, statusFailure(resp.StatusCode, data))
	}
	cas, err := ParseBundle(data)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", CABundlePath, err)
	}
	return cas, nil
}

// AcceptBundle checks a bundle the server offered a node whose certificate
// is cert: it must hold the CA that signed cert, which the node trusts now
// (so the node keeps trusting its own certificate, and a bundle never
// swaps out the CA the node already trusts for unrelated ones).
func AcceptBundle(bundle []*x509.Certificate, trusted []*x509.Certificate, cert *x509.Certificate) error {
	issuer := issuerIn(trusted, cert)
	if issuer == nil {
		return fmt.Errorf("the node certificate is signed by none of the CAs this node trusts")
	}
	if !containsCA(bundle, issuer) {
		return fmt.Errorf("the bundle offered does not hold the CA this node trusts (%q), which signed its certificate",
			issuer.Subject.CommonName)
	}
	return nil
}

// SignedByFirst reports whether cert is signed by the first CA of bundle,
// the one the server signs with now: a node whose certificate is not
// should renew it (after rotate-ca --finish).
func SignedByFirst(bundle []*x509.Certificate, cert *x509.Certificate) bool {
	return len(bundle) > 0 && cert.CheckSignatureFrom(bundle[0]) == nil
}
