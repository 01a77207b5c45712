package dns

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func dnsPod(policy corev1.DNSPolicy, hostNet bool, cfg *corev1.PodDNSConfig) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "p"},
		Spec:       corev1.PodSpec{DNSPolicy: policy, HostNetwork: hostNet, DNSConfig: cfg},
	}
}

func TestResolvConf(t *testing.T) {
	host := HostConfig{
		Nameservers: []string{"192.168.1.1", "192.168.1.2"},
		Searches:    []string{"lan", "corp.example"},
		Options:     []string{"timeout:2", "edns0"},
	}
	cluster := []string{"10.43.0.10"}
	clusterFile := "search shop.svc.cluster.local svc.cluster.local cluster.local lan corp.example\n" +
		"nameserver 10.43.0.10\noptions ndots:5\n"
	hostFile := "search lan corp.example\nnameserver 192.168.1.1\nnameserver 192.168.1.2\noptions timeout:2 edns0\n"
	cases := []struct {
		name    string
		pod     *corev1.Pod
		cluster []string
		domain  string
		want    string
	}{
		{"ClusterFirst", dnsPod(corev1.DNSClusterFirst, false, nil), cluster, "cluster.local", clusterFile},
		{"empty policy is ClusterFirst", dnsPod("", false, nil), cluster, "cluster.local", clusterFile},
		{"ClusterFirst on the host network is Default", dnsPod(corev1.DNSClusterFirst, true, nil), cluster, "cluster.local", hostFile},
		{"ClusterFirstWithHostNet", dnsPod(corev1.DNSClusterFirstWithHostNet, true, nil), cluster, "cluster.local", clusterFile},
		{"ClusterFirst without a cluster DNS is Default", dnsPod(corev1.DNSClusterFirst, false, nil), nil, "cluster.local", hostFile},
		{"ClusterFirst without a domain keeps host searches", dnsPod(corev1.DNSClusterFirst, false, nil), cluster, "",
			"search lan corp.example\nnameserver 10.43.0.10\noptions ndots:5\n"},
		{"Default", dnsPod(corev1.DNSDefault, false, nil), cluster, "cluster.local", hostFile},
		{"None with dnsConfig", dnsPod(corev1.DNSNone, false, &corev1.PodDNSConfig{
			Nameservers: []string{"1.1.1.1"}, Searches: []string{"a.example"},
			Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptrTo("2")}, {Name: "rotate"}},
		}), cluster, "cluster.local", "search a.example\nnameserver 1.1.1.1\noptions ndots:2 rotate\n"},
		{"None without dnsConfig", dnsPod(corev1.DNSNone, false, nil), cluster, "cluster.local", ""},
		{"ClusterFirst merged with dnsConfig", dnsPod(corev1.DNSClusterFirst, false, &corev1.PodDNSConfig{
			Nameservers: []string{"10.43.0.10", "1.1.1.1"}, Searches: []string{"lan", "x.example"},
			Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptrTo("1")}, {Name: "single-request"}},
		}), cluster, "cluster.local",
			"search shop.svc.cluster.local svc.cluster.local cluster.local lan corp.example x.example\n" +
				"nameserver 10.43.0.10\nnameserver 1.1.1.1\noptions ndots:1 single-request\n"},
		{"at most three nameservers", dnsPod(corev1.DNSDefault, false, &corev1.PodDNSConfig{
			Nameservers: []string{"1.1.1.1", "8.8.8.8"},
		}), cluster, "cluster.local", strings.Replace(hostFile, "nameserver 192.168.1.2\n",
			"nameserver 192.168.1.2\nnameserver 1.1.1.1\n", 1)},
	}
	for _, c := range cases {
		if got := ResolvConf(c.pod, c.cluster, c.domain, host); got != c.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

func TestResolvConfSearchLimits(t *testing.T) {
	var many []string
	for i := range 40 {
		many = append(many, strings.Repeat("x", 60)+string(rune('a'+i%26))+strings.Repeat("y", i))
	}
	pod := dnsPod(corev1.DNSNone, false, &corev1.PodDNSConfig{Searches: many})
	got := strings.Fields(strings.TrimPrefix(strings.Split(ResolvConf(pod, nil, "", HostConfig{}), "\n")[0], "search "))
	if len(got) > 32 || len(strings.Join(got, " ")) > 2048 {
		t.Fatalf("%d searches of %d characters, want at most 32 and 2048", len(got), len(strings.Join(got, " ")))
	}
}
