package server

import (
	"strings"
	"testing"
)

// TestMetricsTokenFlag: a short or spaced --metrics-token is refused by
// name; a good one passes that check.
func TestMetricsTokenFlag(t *testing.T) {
	for token, bad := range map[string]bool{"short": true, "sixteen chars ok": true, "0123456789abcdef": false, "": false} {
		c := Config{HTTPSPort: 6443, BindAddress: "127.0.0.1", MQTTListenPort: 8883, DataDir: t.TempDir(), MetricsToken: token}
		err := c.validate()
		if named := err != nil && strings.Contains(err.Error(), "--metrics-token"); named != bad {
			t.Errorf("--metrics-token %q: got %v, want an error naming the flag: %v", token, err, bad)
		}
	}
}
