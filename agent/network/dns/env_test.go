package dns

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func envStrings(env []corev1.EnvVar) []string {
	out := []string{}
	for _, e := range env {
		out = append(out, e.Name+"="+e.Value)
	}
	return out
}

func TestServiceEnv(t *testing.T) {
	kube := service("default", "kubernetes", "10.43.0.1", corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP})
	web := service("shop", "my-web", "10.43.0.20",
		corev1.ServicePort{Name: "http", Port: 80},
		corev1.ServicePort{Name: "dns-udp", Port: 53, Protocol: corev1.ProtocolUDP})
	unnamed := service("shop", "db", "10.43.0.30", corev1.ServicePort{Port: 5432, Protocol: corev1.ProtocolTCP})
	headless := service("shop", "hl", corev1.ClusterIPNone, corev1.ServicePort{Port: 1})
	other := service("else", "foo", "10.43.0.40", corev1.ServicePort{Port: 1})
	all := []*corev1.Service{web, kube, unnamed, headless, other}
	kubeVars := []string{
		"KUBERNETES_SERVICE_HOST=10.43.0.1", "KUBERNETES_SERVICE_PORT=443", "KUBERNETES_SERVICE_PORT_HTTPS=443",
		"KUBERNETES_PORT=tcp://10.43.0.1:443", "KUBERNETES_PORT_443_TCP=tcp://10.43.0.1:443",
		"KUBERNETES_PORT_443_TCP_PROTO=tcp", "KUBERNETES_PORT_443_TCP_PORT=443", "KUBERNETES_PORT_443_TCP_ADDR=10.43.0.1",
	}
	dbVars := []string{
		"DB_SERVICE_HOST=10.43.0.30", "DB_SERVICE_PORT=5432", "DB_PORT=tcp://10.43.0.30:5432",
		"DB_PORT_5432_TCP=tcp://10.43.0.30:5432", "DB_PORT_5432_TCP_PROTO=tcp",
		"DB_PORT_5432_TCP_PORT=5432", "DB_PORT_5432_TCP_ADDR=10.43.0.30",
	}
	webVars := []string{
		"MY_WEB_SERVICE_HOST=10.43.0.20", "MY_WEB_SERVICE_PORT=80",
		"MY_WEB_SERVICE_PORT_HTTP=80", "MY_WEB_SERVICE_PORT_DNS_UDP=53",
		"MY_WEB_PORT=tcp://10.43.0.20:80",
		"MY_WEB_PORT_80_TCP=tcp://10.43.0.20:80", "MY_WEB_PORT_80_TCP_PROTO=tcp",
		"MY_WEB_PORT_80_TCP_PORT=80", "MY_WEB_PORT_80_TCP_ADDR=10.43.0.20",
		"MY_WEB_PORT_53_UDP=udp://10.43.0.20:53", "MY_WEB_PORT_53_UDP_PROTO=udp",
		"MY_WEB_PORT_53_UDP_PORT=53", "MY_WEB_PORT_53_UDP_ADDR=10.43.0.20",
	}
	cases := []struct {
		name  string
		ns    string
		links bool
		want  []string
	}{
		{"links on", "shop", true, slices.Concat(dbVars, kubeVars, webVars)},
		{"links off keeps the kubernetes service", "shop", false, kubeVars},
		{"default namespace", "default", true, kubeVars},
	}
	for _, c := range cases {
		if got := envStrings(ServiceEnv(c.ns, c.links, all)); !slices.Equal(got, c.want) {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, got, c.want)
		}
	}
}
