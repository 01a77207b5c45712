package server

import (
	"crypto/x509"
	"net"
	"slices"
	"testing"
)

func TestBrokerURLs(t *testing.T) {
	cert := &x509.Certificate{
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("192.0.2.2")},
		DNSNames:    []string{"localhost", "pi-server"},
	}
	cases := []struct {
		bind string
		want []string
	}{
		{"0.0.0.0", []string{"mqtts://192.0.2.2:8883", "mqtts://pi-server:8883", "mqtts://127.0.0.1:8883", "mqtts://localhost:8883"}},
		{"::", []string{"mqtts://192.0.2.2:8883", "mqtts://pi-server:8883", "mqtts://127.0.0.1:8883", "mqtts://localhost:8883"}},
		// Bound to one address, the broker answers nowhere else.
		{"127.0.0.1", []string{"mqtts://127.0.0.1:8883"}},
		{"fd00::1", []string{"mqtts://[fd00::1]:8883"}},
	}
	for _, c := range cases {
		if got := brokerURLs(cert, c.bind, 8883); !slices.Equal(got, c.want) {
			t.Errorf("bind %s: got %q, want %q", c.bind, got, c.want)
		}
	}
}
