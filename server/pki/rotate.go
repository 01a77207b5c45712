package pki

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// Services are the certificates `bramble certificate rotate --service`
// names, each with the files it is kept in (under <data-dir>/server/tls).
var Services = map[string]string{
	"api-server": "serving",
	"admin":      "client-admin",
}

// ServiceNames lists Services' names, sorted.
func ServiceNames() []string {
	names := make([]string, 0, len(Services))
	for n := range Services {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Rotate moves the certificates and keys of services (all when empty) out
// of dir into dir/rotated-<unix time>, which it returns, so the server's
// next start issues them again under the same CA. The CA is never
// touched: nodes keep trusting the server.
func Rotate(dir string, services []string, now time.Time) (string, error) {
	if len(services) == 0 {
		services = ServiceNames()
	}
	for _, s := range services {
		if _, ok := Services[s]; !ok {
			return "", fmt.Errorf("--service %q: want one of %v", s, ServiceNames())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ca.crt")); err != nil {
		return "", fmt.Errorf("no cluster CA in %s (wrong --data-dir?): %w", dir, err)
	}
	backup := filepath.Join(dir, "rotated-"+strconv.FormatInt(now.Unix(), 10))
	if err := os.MkdirAll(backup, 0o700); err != nil {
		return "", fmt.Errorf("rotate: %w", err)
	}
	for _, s := range services {
		for _, ext := range []string{".crt", ".key"} {
			name := Services[s] + ext
			err := os.Rename(filepath.Join(dir, name), filepath.Join(backup, name))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("rotate %s: %w", s, err)
			}
		}
	}
	return backup, nil
}

// CertInfo is one certificate of a data dir, for `bramble certificate check`.
type CertInfo struct {
	File     string
	Subject  string
	NotAfter time.Time
	Err      error // the file does not parse
}

// Inspect reads the certificates named by files (paths) that exist.
func Inspect(files []string) []CertInfo {
	var out []CertInfo
	for _, f := range files {
		data, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		info := CertInfo{File: f, Err: err}
		var cert *x509.Certificate
		if err == nil {
			cert, info.Err = parseCertPEM(data)
		}
		if cert != nil {
			info.Subject, info.NotAfter = cert.Subject.CommonName, cert.NotAfter
		}
		out = append(out, info)
	}
	return out
}

// RenewsAtStart reports whether the server's next start renews a server
// certificate that expires at notAfter (within 90 days).
func RenewsAtStart(notAfter, now time.Time) bool { return notAfter.Sub(now) < renewBefore }
