package join

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bramble-edge/bramble/durable"
)

// RenewedFile (0600) holds a renewed key and certificate while SaveRenewed
// replaces node.key and node.crt: a crash between the two leaves a key
// that does not fit its certificate, and LoadCredentials finishes the
// swap from this file.
const RenewedFile = "renewed.pem"

// SaveRenewed saves credentials that replace the ones in dir after a
// renewal: first both halves in RenewedFile, then the usual files, then
// RenewedFile goes.
func (c *Credentials) SaveRenewed(dir string) error {
	path := filepath.Join(dir, RenewedFile)
	if err := durable.WriteFile(path, append(append([]byte(nil), c.KeyPEM...), c.CertPEM...), 0o600); err != nil {
		return fmt.Errorf("save renewed credentials: %w", err)
	}
	if err := c.Save(dir); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("save renewed credentials: %w", err)
	}
	return nil
}

// finishRenewal completes a SaveRenewed a crash interrupted: when
// RenewedFile holds a pair that loads, node.key and node.crt become it.
func finishRenewal(dir string) error {
	path := filepath.Join(dir, RenewedFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("finish certificate renewal: %w", err)
	}
	if _, err := tls.X509KeyPair(data, data); err != nil {
		// Torn before it was complete: the old pair is still in place.
		return os.Remove(path)
	}
	keyPEM, certPEM := splitPEM(data)
	for _, f := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{{KeyFile, keyPEM, 0o600}, {CertFile, certPEM, 0o644}} {
		if err := durable.WriteFile(filepath.Join(dir, f.name), f.data, f.mode); err != nil {
			return fmt.Errorf("finish certificate renewal: %w", err)
		}
	}
	return os.Remove(path)
}

// splitPEM cuts a key PEM followed by a certificate PEM in two.
func splitPEM(data []byte) (keyPEM, certPEM []byte) {
	i := bytes.Index(data, []byte("-----BEGIN CERTIFICATE-----"))
	if i < 0 {
		return data, nil
	}
	return data[:i], data[i:]
}
