package imageregistry

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Credentials are registry logins from a pod's imagePullSecrets, keyed by
// registry host (normalized: docker.io for Docker Hub, no scheme or path).
type Credentials map[string]AuthConfig

// dockerHubHosts are the names Docker Hub logins go by.
var dockerHubHosts = map[string]bool{
	"docker.io": true, "index.docker.io": true, "registry-1.docker.io": true,
}

// registryKey reduces a registry address as people write it in docker
// config files ("https://index.docker.io/v1/", "reg:5000") to a host.
func registryKey(s string) string {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s = s[:i]
	}
	s = strings.ToLower(s)
	if dockerHubHosts[s] {
		return "docker.io"
	}
	return s
}

// ParseDockerConfig reads the data of a kubernetes.io/dockerconfigjson
// ({"auths": {...}}) or kubernetes.io/dockercfg ({...}) Secret.
func ParseDockerConfig(data []byte) (Credentials, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("docker config: %w", err)
	}
	var entries map[string]AuthConfig
	if auths, ok := top["auths"]; ok {
		if err := json.Unmarshal(auths, &entries); err != nil {
			return nil, fmt.Errorf("docker config: auths: %w", err)
		}
	} else if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("docker config: no \"auths\" and not a dockercfg map: %w", err)
	}
	creds := Credentials{}
	for addr, a := range entries {
		key := registryKey(addr)
		if key == "" {
			return nil, fmt.Errorf("docker config: entry %q names no registry host", addr)
		}
		if _, _, err := a.credentials(); err != nil {
			return nil, fmt.Errorf("docker config: entry %q: %w", addr, err)
		}
		creds[key] = a
	}
	return creds, nil
}

// Merge returns the union of c and other; other wins on the same host.
func (c Credentials) Merge(other Credentials) Credentials {
	out := make(Credentials, len(c)+len(other))
	for k, v := range c {
		out[k] = v
	}
	for k, v := range other {
		out[k] = v
	}
	return out
}

// lookupAuth finds the login for an endpoint host: the pod's credentials
// first (never sent to a mirror of another host), then the registries file's.
func (r Config) lookupAuth(creds Credentials, host string) (string, string, error) {
	if a, ok := creds[registryKey(host)]; ok {
		return a.credentials()
	}
	for _, k := range []string{host, registryKey(host)} {
		if rc, ok := r.Configs[k]; ok && rc.Auth != nil {
			return rc.Auth.credentials()
		}
	}
	return "", "", nil
}
