package dns

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Limits the kubelet puts on a pod's resolver configuration.
const (
	maxNameservers   = 3
	maxSearches      = 32
	maxSearchChars   = 2048
	defaultNdotsOpts = "ndots:5"
)

// ResolvConf is the content of a pod's /etc/resolv.conf as the kubelet
// (and containerd's CRI) writes it for the pod's dnsPolicy:
//   - ClusterFirst (the default): the cluster DNS, searches
//     <ns>.svc.<domain> svc.<domain> <domain> then the host's, ndots:5; a
//     host-network pod gets Default instead, as upstream;
//   - ClusterFirstWithHostNet: ClusterFirst, host network or not;
//   - Default: the node's own resolv.conf;
//   - None: only the pod's dnsConfig.
//
// A dnsConfig is merged in after the policy's choice (nameservers and
// searches appended without duplicates, options overriding by name). With
// no clusterDNS, ClusterFirst falls back to Default, as the kubelet does.
func ResolvConf(pod *corev1.Pod, clusterDNS []string, domain string, host HostConfig) string {
	c := podConfig(pod, clusterDNS, domain, host)
	if d := pod.Spec.DNSConfig; d != nil {
		c.Nameservers = appendNew(c.Nameservers, d.Nameservers...)
		c.Searches = appendNew(c.Searches, d.Searches...)
		c.Options = mergeOptions(c.Options, d.Options)
	}
	return format(limit(c))
}

func podConfig(pod *corev1.Pod, clusterDNS []string, domain string, host HostConfig) HostConfig {
	switch pod.Spec.DNSPolicy {
	case corev1.DNSNone:
		return HostConfig{}
	case corev1.DNSDefault:
		return host
	case corev1.DNSClusterFirst, "":
		if pod.Spec.HostNetwork {
			return host
		}
	}
	if len(clusterDNS) == 0 {
		return host
	}
	searches := host.Searches
	if domain != "" {
		searches = appendNew([]string{pod.Namespace + ".svc." + domain, "svc." + domain, domain}, host.Searches...)
	}
	return HostConfig{
		Nameservers: append([]string(nil), clusterDNS...),
		Searches:    searches,
		Options:     []string{defaultNdotsOpts},
	}
}

// appendNew appends the values not already present.
func appendNew(to []string, vals ...string) []string {
	out := append([]string(nil), to...)
	for _, v := range vals {
		dup := false
		for _, have := range out {
			dup = dup || have == v
		}
		if !dup {
			out = append(out, v)
		}
	}
	return out
}

// mergeOptions overrides options by name, keeping first-seen order (the
// kubelet's order is that of a Go map; ours is stable).
func mergeOptions(have []string, pod []corev1.PodDNSConfigOption) []string {
	var names []string
	vals := map[string]string{}
	set := func(name, val string) {
		if _, ok := vals[name]; !ok {
			names = append(names, name)
		}
		vals[name] = val
	}
	for _, o := range have {
		name, val, _ := strings.Cut(o, ":")
		set(name, val)
	}
	for _, o := range pod {
		val := ""
		if o.Value != nil {
			val = *o.Value
		}
		set(o.Name, val)
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		if vals[n] != "" {
			n += ":" + vals[n]
		}
		out = append(out, n)
	}
	return out
}

// limit trims to the kubelet's limits: 3 nameservers, 32 search domains of
// at most 2,048 characters together.
func limit(c HostConfig) HostConfig {
	if len(c.Nameservers) > maxNameservers {
		c.Nameservers = c.Nameservers[:maxNameservers]
	}
	if len(c.Searches) > maxSearches {
		c.Searches = c.Searches[:maxSearches]
	}
	for len(c.Searches) > 0 && len(strings.Join(c.Searches, " ")) > maxSearchChars {
		c.Searches = c.Searches[:len(c.Searches)-1]
	}
	return c
}

// format writes search, nameserver and options lines in containerd's order.
func format(c HostConfig) string {
	var b strings.Builder
	if len(c.Searches) > 0 {
		b.WriteString("search " + strings.Join(c.Searches, " ") + "\n")
	}
	for _, ns := range c.Nameservers {
		b.WriteString("nameserver " + ns + "\n")
	}
	if len(c.Options) > 0 {
		b.WriteString("options " + strings.Join(c.Options, " ") + "\n")
	}
	return b.String()
}
