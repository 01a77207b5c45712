// Package satoken issues and verifies ServiceAccount tokens: JWTs signed
// with the server's key (<data-dir>/server/tls/service-account.key), with
// upstream's claims, bound to a pod or a legacy Secret. Every server
// publishes its public key in the datastore, so servers sharing one verify
// each other's tokens, and a replaced key stays trusted until the last
// token it signed has expired.
package satoken

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bramble-edge/bramble/server/auth"
)

// KeyFile is the signing key's name in the server's TLS directory. Replace
// (or delete) it and restart the server to rotate the key.
const KeyFile = "service-account.key"

// signingKey is this server's private key and its key id.
type signingKey struct {
	priv *rsa.PrivateKey
	kid  string
}

// loadOrCreateKey reads dir/KeyFile (an RSA key, PKCS#8 or PKCS#1 PEM),
// making a 2048-bit one when the file does not exist.
func loadOrCreateKey(dir string) (*signingKey, error) {
	path := filepath.Join(dir, KeyFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return createKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("service account key: %w", err)
	}
	priv, err := parseKey(raw)
	if err != nil {
		return nil, fmt.Errorf("service account key %s: %w", path, err)
	}
	return newSigningKey(priv)
}

func createKey(path string) (*signingKey, error) {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generate service account key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if err := auth.WriteFileAtomic(path, data, 0o600); err != nil {
		return nil, fmt.Errorf("write service account key: %w", err)
	}
	return newSigningKey(priv)
}

// parseKey reads an RSA private key from PEM.
func parseKey(raw []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(raw)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("not a PKCS#1 or PKCS#8 private key: %w", err)
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("a %T key: want RSA (tokens are RS256, as upstream's)", k)
	}
	return rk, nil
}

func newSigningKey(priv *rsa.PrivateKey) (*signingKey, error) {
	if priv.N.BitLen() < 2048 {
		return nil, fmt.Errorf("RSA key of %d bits: want at least 2048", priv.N.BitLen())
	}
	kid, err := keyID(&priv.PublicKey)
	if err != nil {
		return nil, err
	}
	return &signingKey{priv: priv, kid: kid}, nil
}

// keyID names a public key as upstream does: the unpadded base64url of the
// sha256 of its PKIX DER, so every server computes the same id.
func keyID(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("key id: %w", err)
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}
