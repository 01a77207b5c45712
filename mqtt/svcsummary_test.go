package mqtt

import (
	"strings"
	"testing"
)

func sampleSummary() *ServiceSummary {
	return &ServiceSummary{Metadata: SummaryMeta{Namespace: "demo", Name: "web"},
		Relays: []RelayPort{{Port: "http", Protocol: "TCP", Relay: 31001}, {Port: "dns", Protocol: "UDP", Relay: 31002}},
		Hosts:  []SummaryHost{{Node: "na", IP: "10.0.0.1", Endpoints: 3}, {Node: "nb", IP: "10.0.0.2", Endpoints: 1}}}
}

func TestServiceSummaryRoundTrip(t *testing.T) {
	b, err := sampleSummary().Encode()
	if err != nil {
		t.Fatal(err)
	}
	s, err := DecodeServiceSummary(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.RelayFor("dns", "UDP"); got != 31002 {
		t.Errorf("RelayFor(dns, UDP) = %d, want 31002", got)
	}
	if got := s.RelayFor("dns", "TCP"); got != 0 {
		t.Errorf("RelayFor(dns, TCP) = %d, want 0", got)
	}
}

func TestServiceSummaryRejects(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		edit       func(*ServiceSummary)
	}{
		{"namespace", "namespace:", func(s *ServiceSummary) { s.Metadata.Namespace = "Demo" }},
		{"name", "name:", func(s *ServiceSummary) { s.Metadata.Name = "" }},
		{"protocol", "relays[0].protocol", func(s *ServiceSummary) { s.Relays[0].Protocol = "tcp" }},
		{"relay range", "relays[1].relay", func(s *ServiceSummary) { s.Relays[1].Relay = 70000 }},
		{"relay twice", "relays[1]: port", func(s *ServiceSummary) { s.Relays[1] = s.Relays[0] }},
		{"port name", "relays[0].port", func(s *ServiceSummary) { s.Relays[0].Port = "no such name!" }},
		{"host ip", "hosts[1].ip", func(s *ServiceSummary) { s.Hosts[1].IP = "fd00::1" }},
		{"host ip form", "hosts[0].ip", func(s *ServiceSummary) { s.Hosts[0].IP = "010.0.0.1" }},
		{"endpoints", "hosts[0].endpoints", func(s *ServiceSummary) { s.Hosts[0].Endpoints = 0 }},
		{"host twice", "hosts[1].node: na given twice", func(s *ServiceSummary) { s.Hosts[1].Node = "na" }},
		{"node", "hosts[0].node", func(s *ServiceSummary) { s.Hosts[0].Node = "" }},
	} {
		s := sampleSummary()
		tc.edit(s)
		b, _ := s.Encode()
		if _, err := DecodeServiceSummary(b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
	if _, err := DecodeServiceSummary([]byte(`{"metadata":{"namespace":"a","name":"b"},"extra":1}`)); err == nil {
		t.Error("an unknown field was accepted")
	}
}
