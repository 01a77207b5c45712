package sandbox

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// PodNetwork is one running pod as the node's network sees it: what
// NetworkPolicy (agent/network/policy) selects and matches ports by.
type PodNetwork struct {
	Namespace, Name, UID string
	Labels               map[string]string
	IPs                  []netip.Addr // the node's IP for host-network pods
	HostNetwork          bool
	Ports                []ContainerPort
}

// ContainerPort is a declared container port (named ports resolve by it).
type ContainerPort struct {
	Name     string
	Port     int32
	Protocol corev1.Protocol
}

func podNetwork(pod *corev1.Pod, ips []netip.Addr) *PodNetwork {
	p := &PodNetwork{Namespace: pod.Namespace, Name: pod.Name, UID: string(pod.UID),
		Labels: maps.Clone(pod.Labels), IPs: slices.Clone(ips), HostNetwork: pod.Spec.HostNetwork}
	for _, c := range pod.Spec.Containers {
		for _, cp := range c.Ports {
			proto := cp.Protocol
			if proto == "" {
				proto = corev1.ProtocolTCP
			}
			p.Ports = append(p.Ports, ContainerPort{Name: cp.Name, Port: cp.ContainerPort, Protocol: proto})
		}
	}
	return p
}

// Hostname is the pod's hostname: spec.hostname, else its name, cut to 63
// characters without a trailing '-' or '.' (kubelet's rule).
func Hostname(pod *corev1.Pod) string {
	h := pod.Spec.Hostname
	if h == "" {
		h = pod.Name
	}
	if len(h) > 63 {
		h = strings.TrimRight(h[:63], "-.")
	}
	return h
}

// hostsFile is the pod's /etc/hosts: localhost, the pod's own addresses
// with its names (the FQDN first when it has a subdomain), then its
// hostAliases.
func hostsFile(pod *corev1.Pod, ips []netip.Addr, domain string) []byte {
	var b strings.Builder
	b.WriteString("# Kubernetes-managed hosts file (bramble).\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" +
		"fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n")
	names := Hostname(pod)
	if sub := pod.Spec.Subdomain; sub != "" {
		names = fmt.Sprintf("%s.%s.%s.svc.%s\t%s", Hostname(pod), sub, pod.Namespace, domain, Hostname(pod))
	}
	for _, ip := range ips {
		fmt.Fprintf(&b, "%s\t%s\n", ip, names)
	}
	if len(pod.Spec.HostAliases) > 0 {
		b.WriteString("\n# Entries added by HostAliases.\n")
		for _, a := range pod.Spec.HostAliases {
			fmt.Fprintf(&b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, "\t"))
		}
	}
	return []byte(b.String())
}

// portMappings are the pod's hostPorts in portmap's runtimeConfig shape.
func portMappings(pod *corev1.Pod) []map[string]any {
	var out []map[string]any
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.HostPort == 0 {
				continue
			}
			proto := strings.ToLower(string(p.Protocol))
			if proto == "" {
				proto = "tcp"
			}
			m := map[string]any{"hostPort": p.HostPort, "containerPort": p.ContainerPort, "protocol": proto}
			if p.HostIP != "" {
				m["hostIP"] = p.HostIP
			}
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i]["hostPort"].(int32) < out[j]["hostPort"].(int32) })
	return out
}

// Bandwidth annotations, in bits per second as resource quantities (10M).
const (
	IngressBandwidthAnnotation = "kubernetes.io/ingress-bandwidth"
	EgressBandwidthAnnotation  = "kubernetes.io/egress-bandwidth"
)

// unlimitedBurst is the burst given with a rate, as kubelet does: the
// rate alone limits.
const unlimitedBurst = 1<<31 - 1

// bandwidth is the pod's limits in the bandwidth plugin's runtimeConfig
// shape; nil without annotations.
func bandwidth(pod *corev1.Pod) (map[string]any, error) {
	out := map[string]any{}
	for key, field := range map[string]string{IngressBandwidthAnnotation: "ingress", EgressBandwidthAnnotation: "egress"} {
		v, ok := pod.Annotations[key]
		if !ok {
			continue
		}
		q, err := resource.ParseQuantity(v)
		if err != nil || q.Sign() <= 0 || q.Value() < 1000 || q.Value() > 1e15 {
			return nil, fmt.Errorf("annotation %s: got %q, want a rate in bits/s between 1k and 1P (like 10M)", key, v)
		}
		out[field+"Rate"], out[field+"Burst"] = q.Value(), unlimitedBurst
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func (m *Manager) remember(pod *corev1.Pod, ips []netip.Addr) {
	p := podNetwork(pod, ips)
	m.mu.Lock()
	m.pods[p.UID] = p
	f := m.onChange
	m.mu.Unlock()
	if f != nil {
		f()
	}
}

func (m *Manager) forget(uid string) {
	m.mu.Lock()
	_, had := m.pods[uid]
	delete(m.pods, uid)
	f := m.onChange
	m.mu.Unlock()
	if had && f != nil {
		f()
	}
}

// SetOnChange sets what is called (without locks held) each time a pod
// is set up or released: Pods may have changed. NetworkPolicy's enforcer
// compiles again then.
func (m *Manager) SetOnChange(f func()) {
	m.mu.Lock()
	m.onChange = f
	m.mu.Unlock()
}

// RecordedIPs gives the addresses a ready sandbox of the pod holds on
// disk, nil when it has none: after an agent restart, before the pod's
// worker set it up again, what it keeps (policy must not forget it).
func (m *Manager) RecordedIPs(uid string) []netip.Addr {
	rec, err := m.loadRecord(uid)
	if err != nil || rec == nil || !rec.Ready {
		return nil
	}
	return rec.IPs
}

// Pods lists the node's pods set up since the start, host network ones
// included (their IPs are the node's, given by the caller's hostIPs),
// sorted by namespace and name: NetworkPolicy's input.
func (m *Manager) Pods(hostIPs []netip.Addr) []PodNetwork {
	m.mu.Lock()
	out := make([]PodNetwork, 0, len(m.pods))
	for _, p := range m.pods {
		c := *p
		if c.HostNetwork {
			c.IPs = hostIPs
		}
		out = append(out, c)
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}
