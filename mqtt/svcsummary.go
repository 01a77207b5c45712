package mqtt

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// ResourceServiceSummaries is where a routing node stores the per-Service
// summaries of the relay design (docs/SERVICES.md, "Endpoints only where
// they run"): a node that runs no endpoint of a Service holds its summary
// instead of its EndpointSlices and reaches the endpoints through the
// hosting nodes' relay ports.
const ResourceServiceSummaries = "servicesummaries"

// Limits of one summary: relay ports (one per service port) and hosts
// (bounded by the cluster's size).
const (
	MaxSummaryBytes = 1 << 20
	maxSummaryPorts = 100
	maxSummaryHosts = 10000
	// MaxHostEndpoints bounds one node's count (the proxy repeats the
	// node's relay target that many times in its random cascade).
	MaxHostEndpoints = 1000
)

// ServiceSummary is what a node that runs no endpoint of a Service needs
// to reach it: per service port the relay port every hosting node opens,
// and which nodes host how many of its endpoints.
type ServiceSummary struct {
	// Metadata names the Service; the publisher stamps the
	// resourceVersion it sends the summary at.
	Metadata SummaryMeta   `json:"metadata"`
	Relays   []RelayPort   `json:"relays,omitempty"`
	Hosts    []SummaryHost `json:"hosts,omitempty"`
}

// SummaryMeta is a summary's metadata: the Service's namespace and name,
// and the revision the summary was sent at.
type SummaryMeta struct {
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// RelayPort is the relay port of the service port named Port (its name,
// as in spec.ports, "" for a single unnamed port) and protocol.
type RelayPort struct {
	Port     string `json:"port,omitempty"`
	Protocol string `json:"protocol"`
	Relay    int32  `json:"relay"`
}

// SummaryHost is one node hosting endpoints: its name, its node IP (the
// relay's address) and how many endpoints the proxy would use there
// (ready ones, or serving terminating ones when no endpoint is ready).
type SummaryHost struct {
	Node      string `json:"node"`
	IP        string `json:"ip"`
	Endpoints int32  `json:"endpoints"`
}

// Encode is the summary's JSON.
func (s *ServiceSummary) Encode() ([]byte, error) { return json.Marshal(s) }

// DecodeServiceSummary reads and checks a summary as sent to agents.
func DecodeServiceSummary(data []byte) (*ServiceSummary, error) {
	var s ServiceSummary
	if err := decodeStrict(data, MaxSummaryBytes, &s); err != nil {
		return nil, fmt.Errorf("service summary: %w", err)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("service summary %s/%s: %w", s.Metadata.Namespace, s.Metadata.Name, err)
	}
	return &s, nil
}

func (s *ServiceSummary) check() error {
	if rv := s.Metadata.ResourceVersion; rv != "" && strings.Trim(rv, "0123456789") != "" || len(rv) > 19 {
		return fmt.Errorf("metadata.resourceVersion: got %q, want a number", rv)
	}
	if msgs := validation.IsDNS1123Label(s.Metadata.Namespace); len(msgs) > 0 {
		return fmt.Errorf("metadata.namespace: %q: %s", s.Metadata.Namespace, strings.Join(msgs, "; "))
	}
	if msgs := validation.IsDNS1035Label(s.Metadata.Name); len(msgs) > 0 {
		return fmt.Errorf("metadata.name: %q: %s", s.Metadata.Name, strings.Join(msgs, "; "))
	}
	if len(s.Relays) > maxSummaryPorts || len(s.Hosts) > maxSummaryHosts {
		return fmt.Errorf("relays, hosts: got %d and %d, want at most %d and %d", len(s.Relays), len(s.Hosts), maxSummaryPorts, maxSummaryHosts)
	}
	if err := checkRelays(s.Relays); err != nil {
		return err
	}
	return checkHosts(s.Hosts)
}

func checkRelays(relays []RelayPort) error {
	seen := map[string]bool{}
	for i, r := range relays {
		switch {
		case r.Protocol != "TCP" && r.Protocol != "UDP" && r.Protocol != "SCTP":
			return fmt.Errorf("relays[%d].protocol: got %q, want TCP, UDP or SCTP", i, r.Protocol)
		case r.Port != "" && len(validation.IsValidPortName(r.Port)) > 0:
			return fmt.Errorf("relays[%d].port: %q is not a port name", i, r.Port)
		case r.Relay <= 0 || r.Relay > 65535:
			return fmt.Errorf("relays[%d].relay: got %d, want 1-65535", i, r.Relay)
		case seen[r.Port+"/"+r.Protocol]:
			return fmt.Errorf("relays[%d]: port %q %s given twice", i, r.Port, r.Protocol)
		}
		seen[r.Port+"/"+r.Protocol] = true
	}
	return nil
}

func checkHosts(hosts []SummaryHost) error {
	seen := map[string]bool{}
	for i, h := range hosts {
		if err := checkNodeName(h.Node); err != nil {
			return fmt.Errorf("hosts[%d].%w", i, err)
		}
		ip, err := netip.ParseAddr(h.IP)
		switch {
		case err != nil || !ip.Is4() || ip.String() != h.IP:
			return fmt.Errorf("hosts[%d].ip: got %q, want an IPv4 address", i, h.IP)
		case h.Endpoints <= 0 || h.Endpoints > MaxHostEndpoints:
			return fmt.Errorf("hosts[%d].endpoints: got %d, want 1-%d", i, h.Endpoints, MaxHostEndpoints)
		case seen[h.Node]:
			return fmt.Errorf("hosts[%d].node: %s given twice", i, h.Node)
		}
		seen[h.Node] = true
	}
	return nil
}

// RelayFor is the relay port of a service port (name, protocol), 0 when
// the summary gives none.
func (s *ServiceSummary) RelayFor(port, protocol string) int32 {
	for _, r := range s.Relays {
		if r.Port == port && r.Protocol == protocol {
			return r.Relay
		}
	}
	return 0
}
