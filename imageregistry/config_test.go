package imageregistry

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/containerd/containerd/remotes/docker"
)

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig([]byte(`
mirrors:
  docker.io:
    endpoint: ["http://mirror.lan:5000", "https://mirror2.lan/prefix"]
  "*":
    endpoint: ["https://all.lan"]
configs:
  "mirror.lan:5000":
    auth: {username: pi, password: secret}
    tls: {insecure_skip_verify: true}
`))
	if err != nil {
		t.Fatalf("ParseConfig: %v", err)
	}
	if got := cfg.Mirrors["docker.io"].Endpoints; len(got) != 2 || got[0] != "http://mirror.lan:5000" {
		t.Errorf("mirrors: got %v", got)
	}
	if c := cfg.Configs["mirror.lan:5000"]; c.Auth == nil || c.Auth.Username != "pi" || c.TLS == nil || !c.TLS.InsecureSkipVerify {
		t.Errorf("configs: got %+v", c)
	}
	for doc, want := range map[string]string{
		`mirrors: {docker.io: {endpoint: ["mirror.lan"]}}`:       `mirrors["docker.io"].endpoint[0]`,
		`mirrors: {docker.io: {endpoint: ["ftp://mirror.lan"]}}`: `want http://`,
		`mirrors: {docker.io: {rewrite: {"^a": "b"}}}`:           `rewrite`,
		`configs: {"r.lan": {auth: {auth: "%%%"}}}`:              `configs["r.lan"].auth`,
		`configs: {"r.lan": {auth: {auth: "bm9jb2xvbg=="}}}`:     `user:password`,
		`configs: {"r.lan": {tls: {cert_file: /a.pem}}}`:         `key_file`,
		`mirrors: [1, 2]`:                                              `decode`,
		`configs: {"": {auth: {username: a}}}`:                         `empty registry host`,
		`mirrors: {docker.io: {endpoint: ["https://m.lan"]}} extra: 1`: `decode`,
	} {
		if _, err := ParseConfig([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseConfig(%s): got %v, want an error naming %s", doc, err, want)
		}
	}
}

func TestParseDockerConfig(t *testing.T) {
	auth := base64.StdEncoding.EncodeToString([]byte("pi:pa:ss"))
	for _, doc := range []string{
		`{"auths":{"https://index.docker.io/v1/":{"auth":"` + auth + `"},"reg.lan:5000":{"username":"u","password":"p"}}}`,
		`{"https://index.docker.io/v1/":{"auth":"` + auth + `"},"http://reg.lan:5000/v2/":{"username":"u","password":"p"}}`,
	} {
		creds, err := ParseDockerConfig([]byte(doc))
		if err != nil {
			t.Fatalf("ParseDockerConfig(%s): %v", doc, err)
		}
		if u, p, _ := creds["docker.io"].credentials(); u != "pi" || p != "pa:ss" {
			t.Errorf("docker.io: got %q %q, want pi pa:ss", u, p)
		}
		if u, p, _ := creds["reg.lan:5000"].credentials(); u != "u" || p != "p" {
			t.Errorf("reg.lan:5000: got %q %q, want u p (from %v)", u, p, creds)
		}
	}
	for doc, want := range map[string]string{
		`[]`:                                "docker config",
		`{"auths":{"r.lan":{"auth":"!!"}}}`: `"r.lan"`,
		`{"auths":{"":{"username":"u"}}}`:   "names no registry host",
	} {
		if _, err := ParseDockerConfig([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDockerConfig(%s): got %v, want an error naming %s", doc, err, want)
		}
	}
}

func TestRegistryHostsMirrorsThenUpstream(t *testing.T) {
	regs := Config{
		Mirrors: map[string]Mirror{
			"docker.io":     {Endpoints: []string{"http://mirror.lan:5000", "https://registry-1.docker.io"}},
			"*":             {Endpoints: []string{"https://all.lan/cache/"}},
			"quay.io":       {Endpoints: []string{"https://q.lan/v2"}},
			"localhost:500": {},
		},
		Configs: map[string]HostConfig{"mirror.lan:5000": {Auth: &AuthConfig{Username: "m", Password: "mp"}}},
	}
	h := &registryHosts{regs: regs, creds: Credentials{"docker.io": {Username: "hub", Password: "hp"}}}
	for host, want := range map[string][]string{
		"docker.io":     {"http://mirror.lan:5000/v2", "https://registry-1.docker.io/v2"},
		"ghcr.io":       {"https://all.lan/cache/v2", "https://ghcr.io/v2"},
		"quay.io":       {"https://q.lan/v2", "https://quay.io/v2"},
		"localhost:500": {"https://localhost:500/v2"},
	} {
		rhs, err := h.lookup(host)
		if err != nil {
			t.Fatalf("lookup(%s): %v", host, err)
		}
		var got []string
		for _, rh := range rhs {
			got = append(got, rh.Scheme+"://"+rh.Host+rh.Path)
			if rh.Capabilities != docker.HostCapabilityPull|docker.HostCapabilityResolve {
				t.Errorf("lookup(%s) %s: capabilities %v, want pull and resolve", host, rh.Host, rh.Capabilities)
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("lookup(%s): got %v, want %v", host, got, want)
		}
	}
	for host, want := range map[string]string{"registry-1.docker.io": "hub:hp", "mirror.lan:5000": "m:mp", "other.lan": ":"} {
		u, p, err := h.regs.lookupAuth(h.creds, host)
		if err != nil || u+":"+p != want {
			t.Errorf("lookupAuth(%s): got %q, %v; want %q", host, u+":"+p, err, want)
		}
	}
}
