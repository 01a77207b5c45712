package pki

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// maxCSRBytes bounds a PEM certificate request read from the network.
const maxCSRBytes = 16 << 10

// ParseCSRPEM decodes a PEM "CERTIFICATE REQUEST" (as an agent sends when it
// joins) and checks its self-signature.
func ParseCSRPEM(data []byte) (*x509.CertificateRequest, error) {
	if len(data) > maxCSRBytes {
		return nil, fmt.Errorf("certificate request: %d bytes, at most %d allowed", len(data), maxCSRBytes)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("certificate request: no PEM block")
	}
	if block.Type != "CERTIFICATE REQUEST" && block.Type != "NEW CERTIFICATE REQUEST" {
		return nil, fmt.Errorf("certificate request: PEM block %q, want CERTIFICATE REQUEST", block.Type)
	}
	csr, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("certificate request: %w", err)
	}
	if err := csr.CheckSignature(); err != nil {
		return nil, fmt.Errorf("certificate request: signature: %w", err)
	}
	return csr, nil
}
