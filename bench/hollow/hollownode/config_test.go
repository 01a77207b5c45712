package hollownode

import (
	"strings"
	"testing"
	"time"
)

func TestConfigErrorsNameTheFlag(t *testing.T) {
	const token = "K10" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" + "::abcdef.0123456789abcdef0123456789abcdef"
	good := func() Config { return Config{Server: "https://127.0.0.1:6443", Token: token, Nodes: 2} }
	cases := []struct {
		want string
		f    func(*Config)
	}{
		{"-server", func(c *Config) { c.Server = "127.0.0.1:6443" }},
		{"-token: required", func(c *Config) { c.Token = "" }},
		{"-token: malformed", func(c *Config) { c.Token = "K10abc" }},
		{"-nodes 0", func(c *Config) { c.Nodes = 0 }},
		{"-heartbeat 10ms", func(c *Config) { c.Heartbeat = 10 * time.Millisecond }},
		{`-prefix "Bad_Name"`, func(c *Config) { c.Prefix = "Bad_Name" }},
		{`-arch "arm 64"`, func(c *Config) { c.Arch = "arm 64" }},
		{"-labels a b=x", func(c *Config) { c.Labels = map[string]string{"a b": "x"} }},
	}
	for _, tc := range cases {
		c := good()
		tc.f(&c)
		if err := c.setDefaults(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error containing %q", err, tc.want)
		}
	}
	c := good()
	if err := c.setDefaults(); err != nil {
		t.Fatalf("a good config: %v", err)
	}
	if c.Prefix != "hollow" || c.Arch != "arm64" || c.CPU.String() != "4" || c.Memory.String() != "4Gi" || c.Heartbeat != 10*time.Second {
		t.Errorf("defaults: got %+v", c)
	}
}
