package imageregistry

import (
	"testing"
)

// FuzzParseDockerConfig: pull secrets arrive from the server over MQTT.
func FuzzParseDockerConfig(f *testing.F) {
	f.Add([]byte(`{"auths":{"https://index.docker.io/v1/":{"auth":"cGk6c2VjcmV0"}}}`))
	f.Add([]byte(`{"reg.lan:5000":{"username":"u","password":"p","identitytoken":"t"}}`))
	f.Add([]byte(`{"auths":null}`))
	f.Add([]byte(`{"auths":{"":{}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		creds, err := ParseDockerConfig(data)
		if err != nil {
			return
		}
		for host, a := range creds {
			if host == "" || host != registryKey(host) {
				t.Fatalf("key %q is not a normalized host", host)
			}
			if _, _, err := a.credentials(); err != nil {
				t.Fatalf("accepted entry %q fails later: %v", host, err)
			}
		}
	})
}

// FuzzParseConfig: whatever it accepts validates and gives hosts.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("mirrors:\n  docker.io:\n    endpoint: [\"http://m.lan:5000\"]\nconfigs:\n  m.lan:5000:\n    auth: {username: a, password: b}\n"))
	f.Add([]byte(`{"mirrors":{"*":{"endpoint":["https://a/b/v2"]}}}`))
	f.Add([]byte("configs: {r: {tls: {ca_file: /x}}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(data)
		if err != nil {
			return
		}
		h := &registryHosts{regs: cfg}
		for host := range cfg.Mirrors {
			if _, err := h.lookup(host); err != nil {
				t.Fatalf("accepted config fails lookup(%q): %v", host, err)
			}
		}
	})
}
