package client

import (
	"context"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/join"
)

func TestConnectRefusesIncompleteConfig(t *testing.T) {
	creds := &join.Credentials{NodeName: "pi-1"}
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no credentials", Config{Applier: NewMemory()}, "Credentials are required"},
		{"no applier", Config{Credentials: creds}, "Applier is required"},
		{"no broker", Config{Credentials: creds, Applier: NewMemory(), APIServer: "https://a"}, "no broker address"},
		{"no API server", Config{Credentials: creds, Applier: NewMemory(), Brokers: []string{"mqtts://a:8883"}}, "no API server URL"},
		{"bad certificate", Config{Credentials: creds, Applier: NewMemory(), Brokers: []string{"mqtts://a:8883"}, APIServer: "https://a"}, "node certificate and key"},
	}
	for _, c := range cases {
		_, err := Connect(context.Background(), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
