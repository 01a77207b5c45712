package mqtt

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ResourcePeerPods names peer pod summaries in a node's view: the pods of
// other nodes that a NetworkPolicy selecting one of the node's pods picks as
// peers. A summary is what enforcement needs of a pod and nothing more.
const ResourcePeerPods = "peerpods"

// MaxPeerPodBytes caps one encoded summary a decoder accepts.
const MaxPeerPodBytes = 64 << 10

// PeerPod is a pod as seen by NetworkPolicy on another node: where it
// lives, its labels, its addresses and its named container ports. It has
// the Kubernetes shape (metadata first) so a desired-stream Change carries
// its resourceVersion like any object's.
type PeerPod struct {
	Metadata PeerMeta   `json:"metadata"`
	IPs      []string   `json:"ips"`
	Ports    []PeerPort `json:"ports,omitempty"`
}

// PeerMeta is the part of a pod's metadata a peer needs.
type PeerMeta struct {
	Namespace       string            `json:"namespace"`
	Name            string            `json:"name"`
	UID             string            `json:"uid,omitempty"`
	ResourceVersion string            `json:"resourceVersion,omitempty"`
	Labels          map[string]string `json:"labels,omitempty"`
}

// PeerPort is a named container port (unnamed ones are never needed).
type PeerPort struct {
	Name     string `json:"name"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol"`
}

// PeerPodOf summarises a pod; ok is false for a pod that cannot be a peer
// (host network, no address yet).
func PeerPodOf(pod *corev1.Pod) (*PeerPod, bool) {
	if pod.Spec.HostNetwork || len(pod.Status.PodIPs) == 0 && pod.Status.PodIP == "" {
		return nil, false
	}
	p := &PeerPod{Metadata: PeerMeta{Namespace: pod.Namespace, Name: pod.Name, UID: string(pod.UID), Labels: pod.Labels}}
	for _, ip := range pod.Status.PodIPs {
		p.IPs = append(p.IPs, ip.IP)
	}
	if len(p.IPs) == 0 {
		p.IPs = []string{pod.Status.PodIP}
	}
	for _, c := range pod.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name != "" {
				p.Ports = append(p.Ports, PeerPort{Name: cp.Name, Port: cp.ContainerPort, Protocol: string(cmpProto(cp.Protocol))})
			}
		}
	}
	sort.Slice(p.Ports, func(i, j int) bool { return p.Ports[i].Name < p.Ports[j].Name })
	return p, true
}

func cmpProto(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}

// Encode checks p and returns its JSON.
func (p *PeerPod) Encode() ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("encode peer pod: %w", err)
	}
	return json.Marshal(p)
}

// DecodePeerPod decodes and checks a summary, naming the field that is wrong.
func DecodePeerPod(data []byte) (*PeerPod, error) {
	var p PeerPod
	if err := decodeStrict(data, MaxPeerPodBytes, &p); err != nil {
		return nil, fmt.Errorf("decode peer pod: %w", err)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("decode peer pod: %w", err)
	}
	return &p, nil
}

func (p *PeerPod) check() error {
	m := &p.Metadata
	switch {
	case len(validation.IsDNS1123Label(m.Namespace)) > 0:
		return fmt.Errorf("metadata.namespace: %q is not a DNS label", m.Namespace)
	case !validName(m.Name):
		return fmt.Errorf("metadata.name: %q is not a DNS subdomain", m.Name)
	case len(p.IPs) == 0 || len(p.IPs) > 2:
		return fmt.Errorf("ips: got %d addresses, want 1 or 2", len(p.IPs))
	}
	if errs := metav1validation.ValidateLabels(m.Labels, field.NewPath("metadata", "labels")); len(errs) > 0 {
		return errs.ToAggregate()
	}
	for i, ip := range p.IPs {
		if a, err := netip.ParseAddr(ip); err != nil || a.Zone() != "" || a.String() != ip {
			return fmt.Errorf("ips[%d]: %q is not a canonical IP address", i, ip)
		}
	}
	for i, pp := range p.Ports {
		if err := pp.check(); err != nil {
			return fmt.Errorf("ports[%d].%w", i, err)
		}
	}
	return nil
}

func (pp PeerPort) check() error {
	switch {
	case len(validation.IsValidPortName(pp.Name)) > 0:
		return fmt.Errorf("name: %q is not a port name", pp.Name)
	case pp.Port < 1 || pp.Port > 65535:
		return fmt.Errorf("port: got %d, want 1-65535", pp.Port)
	case pp.Protocol != "TCP" && pp.Protocol != "UDP" && pp.Protocol != "SCTP":
		return fmt.Errorf("protocol: got %q, want TCP, UDP or SCTP", pp.Protocol)
	}
	return nil
}
