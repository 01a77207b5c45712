package broker

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/durable"

	"k8s.io/apimachinery/pkg/util/validation"
)

// CertIssuer issues client certificates under the cluster CA; the server's
// *pki.PKI is one.
type CertIssuer interface {
	CACertPEM() []byte
	NewClientCert(name string, groups []string, ttl time.Duration) (certPEM, keyPEM []byte, err error)
}

// The files a credentials directory holds, usable by any MQTT client
// (mosquitto_sub --cafile ca.crt --cert client.crt --key client.key).
const (
	CredentialsCAFile   = "ca.crt"     // cluster CA, 0644
	CredentialsCertFile = "client.crt" // client certificate, 0644
	CredentialsKeyFile  = "client.key" // its private key, 0600
)

// CreateViewerCredentials issues a viewer certificate (CN=name,
// O=bramble:viewers) valid for ttl (0: the issuer's default, one year) and
// writes it with its key and the CA into outDir (made 0700 if missing). A
// viewer may subscribe under bramble/v1/watch/ and nothing else; the same
// certificate is a viewer of the API. name must be a DNS-1123 label and not
// reserved. Existing credentials in outDir are not overwritten.
func CreateViewerCredentials(ca CertIssuer, name, outDir string, ttl time.Duration) error {
	if err := validViewerName(name); err != nil {
		return fmt.Errorf("viewer credentials: %w", err)
	}
	return createCredentials(ca, name, []string{ViewerGroup}, outDir, ttl)
}

// CreateServerCredentials issues the server's own identity for an external
// broker (CN=name, O=bramble:servers; name "" means DefaultServerName) and
// writes it like CreateViewerCredentials. The external broker's ACL gives
// that name every topic; the embedded broker refuses it.
func CreateServerCredentials(ca CertIssuer, name, outDir string, ttl time.Duration) error {
	if name == "" {
		name = DefaultServerName
	}
	if err := validServerName(name); err != nil {
		return fmt.Errorf("server credentials: %w", err)
	}
	return createCredentials(ca, name, []string{ServerGroup}, outDir, ttl)
}

// validServerName accepts DefaultServerName and DefaultServerName:<label>
// (one per server when several share an external broker).
func validServerName(name string) error {
	if name == DefaultServerName {
		return nil
	}
	suffix, ok := strings.CutPrefix(name, DefaultServerName+":")
	if !ok {
		return fmt.Errorf("server name %q: must be %q or %q", name, DefaultServerName, DefaultServerName+":<name>")
	}
	if msgs := validation.IsDNS1123Label(suffix); len(msgs) > 0 {
		return fmt.Errorf("server name %q: %s", name, strings.Join(msgs, "; "))
	}
	return nil
}

func createCredentials(ca CertIssuer, name string, groups []string, outDir string, ttl time.Duration) error {
	if err := prepareOutDir(ca, outDir, ttl); err != nil {
		return err
	}
	certPEM, keyPEM, err := ca.NewClientCert(name, groups, ttl)
	if err != nil {
		return fmt.Errorf("credentials for %q: %w", name, err)
	}
	files := []struct {
		name string
		data []byte
		mode os.FileMode
	}{
		{CredentialsKeyFile, keyPEM, 0o600},
		{CredentialsCertFile, certPEM, 0o644},
		{CredentialsCAFile, ca.CACertPEM(), 0o644},
	}
	for _, f := range files {
		if err := durable.WriteFile(filepath.Join(outDir, f.name), f.data, f.mode); err != nil {
			return fmt.Errorf("credentials for %q: %w", name, err)
		}
	}
	return nil
}

// prepareOutDir checks the arguments and makes outDir, which must not
// hold credentials already.
func prepareOutDir(ca CertIssuer, outDir string, ttl time.Duration) error {
	switch {
	case ca == nil:
		return errors.New("credentials: no certificate issuer (cluster CA)")
	case outDir == "":
		return errors.New("credentials: output directory is empty")
	case ttl < 0:
		return fmt.Errorf("credentials: ttl %s: must not be negative", ttl)
	}
	if err := os.MkdirAll(outDir, 0o700); err != nil {
		return fmt.Errorf("credentials: create %s: %w", outDir, err)
	}
	for _, f := range []string{CredentialsCertFile, CredentialsKeyFile} {
		p := filepath.Join(outDir, f)
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("credentials: %s already exists: remove it or choose another output directory", p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("credentials: %w", err)
		}
	}
	return nil
}
