package dns

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseHostConfig(t *testing.T) {
	h, err := ParseHostConfig(strings.NewReader(`# generated
domain ignored.example
search old.example
search lan. corp.example ; comment
nameserver 192.168.1.1
nameserver fd00::1 # v6
nameserver not-an-ip
options ndots:2
options edns0 trust-ad
`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"192.168.1.1", "fd00::1", "not-an-ip"}; !slices.Equal(h.Nameservers, want) {
		t.Errorf("nameservers %q, want %q", h.Nameservers, want)
	}
	if want := []string{"lan", "corp.example"}; !slices.Equal(h.Searches, want) {
		t.Errorf("searches %q, want %q (last line, dots trimmed)", h.Searches, want)
	}
	if want := []string{"ndots:2", "edns0", "trust-ad"}; !slices.Equal(h.Options, want) {
		t.Errorf("options %q, want %q", h.Options, want)
	}
	if want := []string{"192.168.1.1:53", "[fd00::1]:53"}; !slices.Equal(h.Upstreams("10.43.0.10:53"), want) {
		t.Errorf("upstreams %q, want %q", h.Upstreams(""), want)
	}
	if got := (HostConfig{Nameservers: []string{"10.43.0.10"}}).Upstreams("10.43.0.10:53"); len(got) != 0 {
		t.Errorf("the server's own address kept as an upstream: %q", got)
	}
}

func TestChooseResolvConf(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stub := write("stub", "nameserver 127.0.0.53\noptions edns0\n")
	plain := write("plain", "nameserver 192.168.1.1\n")
	real := write("real", "nameserver 192.168.1.1\n")
	missing := filepath.Join(dir, "missing")
	cases := []struct{ flag, etc, systemd, want string }{
		{"/x/flag", stub, real, "/x/flag"},
		{"", stub, real, real},
		{"", stub, missing, stub},
		{"", plain, real, plain},
		{"", missing, real, missing},
	}
	for _, c := range cases {
		if got := ChooseResolvConf(c.flag, c.etc, c.systemd); got != c.want {
			t.Errorf("flag %q etc %q systemd %q: got %q, want %q", c.flag, c.etc, c.systemd, got, c.want)
		}
	}
}
