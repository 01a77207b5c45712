package runtime

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

// RegistriesConfig is the registries file, in the shape of k3s's
// registries.yaml: mirrors per registry host ("*" for every host), and per
// endpoint host the credentials and TLS settings.
//
//	mirrors:
//	  docker.io:
//	    endpoint: ["http://mirror.lan:5000", "https://registry-1.docker.io"]
//	configs:
//	  "mirror.lan:5000":
//	    auth: {username: pi, password: secret}
//	    tls: {ca_file: /etc/bramble/mirror-ca.pem}
type RegistriesConfig struct {
	Mirrors map[string]Mirror         `json:"mirrors,omitempty"`
	Configs map[string]RegistryConfig `json:"configs,omitempty"`
}

// Mirror lists the endpoints tried, in order, before the registry itself.
// An http:// endpoint is spoken to in plain HTTP.
type Mirror struct {
	Endpoints []string `json:"endpoint"`
}

// RegistryConfig holds the credentials and TLS settings of one endpoint host.
type RegistryConfig struct {
	Auth *AuthConfig `json:"auth,omitempty"`
	TLS  *TLSConfig  `json:"tls,omitempty"`
}

// AuthConfig is one registry login: username and password, or Auth
// (base64 of "user:password"), or an identity (refresh) token.
type AuthConfig struct {
	Username      string `json:"username,omitempty"`
	Password      string `json:"password,omitempty"`
	Auth          string `json:"auth,omitempty"`
	IdentityToken string `json:"identitytoken,omitempty"`
}

// TLSConfig names PEM files, and may turn certificate checks off.
type TLSConfig struct {
	CAFile             string `json:"ca_file,omitempty"`
	CertFile           string `json:"cert_file,omitempty"`
	KeyFile            string `json:"key_file,omitempty"`
	InsecureSkipVerify bool   `json:"insecure_skip_verify,omitempty"`
}

// LoadRegistries reads a registries file; a missing file is an empty config.
func LoadRegistries(path string) (RegistriesConfig, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return RegistriesConfig{}, nil
	}
	if err != nil {
		return RegistriesConfig{}, fmt.Errorf("read registries file: %w", err)
	}
	cfg, err := ParseRegistries(b)
	if err != nil {
		return cfg, fmt.Errorf("registries file %s: %w", path, err)
	}
	return cfg, nil
}

// ParseRegistries decodes and checks a registries file's content.
func ParseRegistries(b []byte) (RegistriesConfig, error) {
	var cfg RegistriesConfig
	if err := yaml.UnmarshalStrict(b, &cfg); err != nil {
		return RegistriesConfig{}, fmt.Errorf("decode: %w", err)
	}
	return cfg, cfg.Validate()
}

// Validate names the first bad field.
func (r RegistriesConfig) Validate() error {
	for host, m := range r.Mirrors {
		if host == "" {
			return fmt.Errorf("mirrors: empty registry host")
		}
		for i, ep := range m.Endpoints {
			if _, err := parseEndpoint(ep); err != nil {
				return fmt.Errorf("mirrors[%q].endpoint[%d]: %w", host, i, err)
			}
		}
	}
	for host, c := range r.Configs {
		if host == "" {
			return fmt.Errorf("configs: empty registry host")
		}
		if c.Auth != nil {
			if _, _, err := c.Auth.credentials(); err != nil {
				return fmt.Errorf("configs[%q].auth: %w", host, err)
			}
		}
		if c.TLS != nil && (c.TLS.CertFile == "") != (c.TLS.KeyFile == "") {
			return fmt.Errorf("configs[%q].tls: cert_file and key_file go together", host)
		}
	}
	return nil
}

func parseEndpoint(ep string) (*url.URL, error) {
	u, err := url.Parse(ep)
	if err != nil {
		return nil, fmt.Errorf("endpoint %q: %w", ep, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q: want http://HOST[:PORT][/PATH] or https://...", ep)
	}
	return u, nil
}

// credentials returns the username and secret the registry client sends; an
// identity token goes with an empty username.
func (a AuthConfig) credentials() (string, string, error) {
	switch {
	case a.IdentityToken != "":
		return "", a.IdentityToken, nil
	case a.Username != "" || a.Password != "":
		return a.Username, a.Password, nil
	case a.Auth != "":
		raw, err := base64.StdEncoding.DecodeString(a.Auth)
		if err != nil {
			return "", "", fmt.Errorf("auth is not base64: %w", err)
		}
		user, pass, ok := strings.Cut(string(raw), ":")
		if !ok {
			return "", "", fmt.Errorf("auth does not decode to user:password")
		}
		return user, pass, nil
	}
	return "", "", nil
}
