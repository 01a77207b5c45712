package join

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
)

// CABundlePath answers, to a node presenting its current certificate,
// the CAs it should trust (PEM, the CA that signs first). The request
// carries, in BundleHashHeader, the BundleHash of the CAs the node holds
// now: that is how the server learns which nodes are ready for a CA
// rotation to finish (docs/CERTIFICATES.md).
const CABundlePath = "/v1-bramble/ca-bundle"

// BundleHashHeader carries the BundleHash of the node's ca.crt.
const BundleHashHeader = "Bramble-Ca-Bundle"

// maxBundleCAs bounds how many CAs a bundle may hold.
const maxBundleCAs = 8

// ParseBundle decodes every CERTIFICATE block of data, each of which must
// be a CA certificate; there must be at least one and at most a few.
// Other PEM blocks are skipped.
func ParseBundle(data []byte) ([]*x509.Certificate, error) {
	if len(data) > maxCABytes {
		return nil, fmt.Errorf("more than %d bytes", maxCABytes)
	}
	var cas []*x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %w", len(cas)+1, err)
		}
		if !cert.IsCA {
			return nil, fmt.Errorf("certificate %d (%q) is not a CA certificate", len(cas)+1, cert.Subject.CommonName)
		}
		if len(cas) == maxBundleCAs {
			return nil, fmt.Errorf("more than %d CA certificates", maxBundleCAs)
		}
		cas = append(cas, cert)
	}
	if len(cas) == 0 {
		return nil, errors.New("no PEM CERTIFICATE block")
	}
	return cas, nil
}

// EncodeBundle writes cas as PEM, in order.
func EncodeBundle(cas []*x509.Certificate) []byte {
	var b bytes.Buffer
	for _, c := range cas {
		_ = pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	return b.Bytes()
}

// BundleHash names a set of CAs: the sha256, in hex, of their DER forms
// sorted and de-duplicated, so neither order nor PEM formatting matters.
func BundleHash(cas []*x509.Certificate) string {
	ders := make([][]byte, 0, len(cas))
	for _, c := range cas {
		ders = append(ders, c.Raw)
	}
	slices.SortFunc(ders, bytes.Compare)
	ders = slices.CompactFunc(ders, bytes.Equal)
	h := sha256.New()
	for _, d := range ders {
		h.Write(d)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// containsCA reports whether cas holds ca.
func containsCA(cas []*x509.Certificate, ca *x509.Certificate) bool {
	return slices.ContainsFunc(cas, func(c *x509.Certificate) bool { return bytes.Equal(c.Raw, ca.Raw) })
}

// issuerIn returns the CA of cas that signed cert, or nil.
func issuerIn(cas []*x509.Certificate, cert *x509.Certificate) *x509.Certificate {
	for _, ca := range cas {
		if cert.CheckSignatureFrom(ca) == nil {
			return ca
		}
	}
	return nil
}
