package server

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"syscall"
	"testing"

	"github.com/bramble-edge/bramble/internal/porttest"
)

// startAttempts bounds how often startOnFreePorts picks new ports.
const startAttempts = 5

// startOnFreePorts starts a server with cfg on loopback ports picked for
// it, and returns what Start returned. A port found free is released
// before the server binds it, and the API port is bound only at the end
// of a start that takes seconds under load: other tests running beside
// (CI runs the packages at once) bind ports all the while, and one of
// them may take ours. Start then fails with EADDRINUSE and is tried again
// on new ports; any other error is returned as it is.
func startOnFreePorts(t testing.TB, cfg Config) (*Server, error) {
	t.Helper()
	cfg.BindAddress = "127.0.0.1"
	var err error
	for range startAttempts {
		cfg.HTTPSPort, cfg.MQTTListenPort = porttest.Free(t), porttest.Free(t)
		var s *Server
		if s, err = Start(context.Background(), cfg); !errors.Is(err, syscall.EADDRINUSE) {
			return s, err
		}
		t.Logf("start on ports %d and %d: %v; trying new ports", cfg.HTTPSPort, cfg.MQTTListenPort, err)
	}
	return nil, err
}

// mustStartOnFreePorts is startOnFreePorts for tests that need the server
// up; it stops the server when the test ends.
func mustStartOnFreePorts(t testing.TB, cfg Config) *Server {
	t.Helper()
	s, err := startOnFreePorts(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

// apiPort is the port of the server's API, from its URL.
func apiPort(t testing.TB, s *Server) int {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatalf("port of %s: %v", s.URL, err)
	}
	return port
}

// brokerPort is the port the server's embedded broker listens on.
func brokerPort(t testing.TB, s *Server) int {
	t.Helper()
	if s.Broker == nil || s.Broker.Addr() == nil {
		t.Fatal("the server runs no embedded broker")
	}
	return s.Broker.Addr().(*net.TCPAddr).Port
}
