// Package porttest gives tests and benchmark drivers a loopback TCP port
// nothing listens on, for parts that take a port number rather than a
// listener (the server's API and MQTT ports, mosquitto, host ports). The
// kernel picks it: the port is free when Pick returns, though another
// process may take it before the caller binds it.
package porttest

import (
	"fmt"
	"net"
	"testing"
)

// Pick is a free loopback TCP port, for callers without a testing.TB.
func Pick() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Free is Pick that fails the test when no port can be had.
func Free(t testing.TB) int {
	t.Helper()
	port, err := Pick()
	if err != nil {
		t.Fatal(err)
	}
	return port
}
