// Package imageregistry talks to container image registries the way
// containerd's pulls do: the registries file (k3s's registries.yaml:
// mirrors, plain-HTTP endpoints, TLS files, logins) and the logins of a
// pod's imagePullSecrets, the resolver built from both, image reference
// normalisation, and the PlatformCache that asks a registry which
// platforms an image is published for. The agent's runtime pulls through
// it; the server's scheduler reads image platforms through it. It knows
// nothing of containerd's daemon, the agent or the server.
package imageregistry

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

// Config is the registries file (--registries), in the shape of k3s's
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
type Config struct {
	Mirrors map[string]Mirror     `json:"mirrors,omitempty"`
	Configs map[string]HostConfig `json:"configs,omitempty"`
}

// Mirror lists the endpoints tried, in order, before the registry itself.
// An http:// endpoint is spoken to in plain HTTP.
type Mirror struct {
	Endpoints []string `json:"endpoint"`
}

// HostConfig holds the credentials and TLS settings of one endpoint host.
type HostConfig struct {
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

// LoadConfig reads a registries file; a missing file is an empty config.
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read registries file: %w", err)
	}
	cfg, err := ParseConfig(b)
	if err != nil {
		return cfg, fmt.Errorf("registries file %s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig decodes and checks a registries file's content.
func ParseConfig(b []byte) (Config, error) {
	var cfg Config
	if err := yaml.UnmarshalStrict(b, &cfg); err != nil {
		return Config{}, fmt.Errorf("decode: %w", err)
	}
	return cfg, cfg.Validate()
}

// Validate names the first bad field.
func (r Config) Validate() error {
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
		return nil, fmt.Errorf("endpoint %q: want http://HOST[:PORT][/PATH] or https://HOST[:PORT][/PATH]", ep)
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
