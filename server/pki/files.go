package pki

import (
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bramble-edge/bramble/server/auth"
)

// File modes of what Load writes.
const (
	certMode = 0o644
	keyMode  = 0o600
)

func encodeCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func encodeKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// parseCertPEM decodes the first CERTIFICATE block of data.
func parseCertPEM(data []byte) (*x509.Certificate, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("no PEM CERTIFICATE block")
		}
		if block.Type == "CERTIFICATE" {
			return x509.ParseCertificate(block.Bytes)
		}
	}
}

// parseECKeyPEM decodes an ECDSA private key in SEC 1 or PKCS #8 form.
func parseECKeyPEM(data []byte) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	switch block.Type {
	case "EC PRIVATE KEY":
		return x509.ParseECPrivateKey(block.Bytes)
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, err
		}
		ec, ok := k.(*ecdsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("key is %T, want ECDSA", k)
		}
		return ec, nil
	}
	return nil, fmt.Errorf("PEM block %q, want EC PRIVATE KEY or PRIVATE KEY", block.Type)
}

// readPair reads <name>.crt and <name>.key; ok is false when either is
// missing.
func (p *PKI) readPair(name string) (kp keyPair, ok bool, err error) {
	kp.certPEM, err = os.ReadFile(p.path(name + ".crt"))
	if errors.Is(err, fs.ErrNotExist) {
		return kp, false, nil
	}
	if err != nil {
		return kp, false, fmt.Errorf("read %s.crt: %w", name, err)
	}
	kp.keyPEM, err = os.ReadFile(p.path(name + ".key"))
	if errors.Is(err, fs.ErrNotExist) {
		return kp, false, nil
	}
	if err != nil {
		return kp, false, fmt.Errorf("read %s.key: %w", name, err)
	}
	return kp, true, nil
}

// writePair writes the key first, then the certificate, each atomically:
// a crash in between leaves a pair that does not match, which the next
// start notices and replaces. Load syncs the directory once at the end.
func (p *PKI) writePair(name string, kp keyPair) error {
	if err := auth.WriteFileAtomic(p.path(name+".key"), kp.keyPEM, keyMode); err != nil {
		return fmt.Errorf("write %s.key: %w", name, err)
	}
	if err := auth.WriteFileAtomic(p.path(name+".crt"), kp.certPEM, certMode); err != nil {
		return fmt.Errorf("write %s.crt: %w", name, err)
	}
	p.wrote = true
	return nil
}

func (p *PKI) path(file string) string { return filepath.Join(p.dir, file) }
