package pki

import (
	"fmt"
	"net/url"
	"os"

	"github.com/bramble-edge/bramble/server/auth"
)

// WriteKubeconfig writes the admin kubeconfig to path with mode (from
// --write-kubeconfig-mode; 0 means 0600), creating parent directories: the
// server at serverURL, the CA (the bundle during and after a CA rotation,
// so a copy made during one still trusts the server after --finish) and
// the admin client certificate and key, all embedded, under cluster,
// context and user "default".
func (p *PKI) WriteKubeconfig(path string, mode os.FileMode, serverURL string) error {
	if u, err := url.Parse(serverURL); err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("write kubeconfig %s: server URL %q: want https://host:port", path, serverURL)
	}
	if mode == 0 {
		mode = 0o600
	}
	kc := auth.NewKubeconfig(serverURL, p.BundlePEM(), p.admin.certPEM, p.admin.keyPEM, "")
	if err := kc.WriteFile(path, mode); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}

// AdminCertPEM returns the admin client certificate and key, PEM encoded.
func (p *PKI) AdminCertPEM() (certPEM, keyPEM []byte) {
	return append([]byte(nil), p.admin.certPEM...), append([]byte(nil), p.admin.keyPEM...)
}
