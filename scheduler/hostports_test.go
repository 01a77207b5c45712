package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func podPorts(hostNetwork bool, ports ...corev1.ContainerPort) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.HostNetwork = hostNetwork
		p.Spec.Containers[0].Ports = ports
	}
}

func TestHostPorts(t *testing.T) {
	conflict := []string{"node(s) didn't have free ports for the requested pod ports"}
	tcp80 := corev1.ContainerPort{ContainerPort: 8080, HostPort: 80}
	tests := []struct {
		name     string
		existing func(*corev1.Pod)
		incoming func(*corev1.Pod)
		want     []string
	}{
		{"same hostPort", podPorts(false, tcp80), podPorts(false, tcp80), conflict},
		{"different hostPort", podPorts(false, tcp80), podPorts(false, corev1.ContainerPort{ContainerPort: 8080, HostPort: 81}), nil},
		{"containerPort alone takes nothing", podPorts(false, corev1.ContainerPort{ContainerPort: 80}),
			podPorts(false, corev1.ContainerPort{ContainerPort: 80}), nil},
		{"hostNetwork takes containerPort", podPorts(true, corev1.ContainerPort{ContainerPort: 80}), podPorts(false, tcp80), conflict},
		{"both hostNetwork", podPorts(true, corev1.ContainerPort{ContainerPort: 53}),
			podPorts(true, corev1.ContainerPort{ContainerPort: 53}), conflict},
		{"other protocol", podPorts(false, tcp80),
			podPorts(false, corev1.ContainerPort{ContainerPort: 8080, HostPort: 80, Protocol: corev1.ProtocolUDP}), nil},
		{"TCP is the default protocol", podPorts(false, tcp80),
			podPorts(false, corev1.ContainerPort{ContainerPort: 1, HostPort: 80, Protocol: corev1.ProtocolTCP}), conflict},
		{"distinct host IPs", podPorts(false, corev1.ContainerPort{ContainerPort: 1, HostPort: 80, HostIP: "10.0.0.1"}),
			podPorts(false, corev1.ContainerPort{ContainerPort: 1, HostPort: 80, HostIP: "10.0.0.2"}), nil},
		{"wildcard overlaps an IP", podPorts(false, corev1.ContainerPort{ContainerPort: 1, HostPort: 80, HostIP: "10.0.0.1"}),
			podPorts(false, corev1.ContainerPort{ContainerPort: 1, HostPort: 80, HostIP: "0.0.0.0"}), conflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			existing := makePod("default", "old", tc.existing, podOn("n1"))
			e := newEnv(t, []*corev1.Node{makeNode("n1")}, existing)
			got := e.filterResult(hostPorts{}, makePod("default", "p", tc.incoming), "n1")
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHostPortFreedWhenPodLeaves(t *testing.T) {
	ports := podPorts(false, corev1.ContainerPort{ContainerPort: 80, HostPort: 80})
	e := newEnv(t, []*corev1.Node{makeNode("n1")}, makePod("default", "old", ports, podOn("n1")))
	e.cache.removePod("default/old")
	if got := e.filterResult(hostPorts{}, makePod("default", "p", ports), "n1"); got != nil {
		t.Errorf("got %q, want the port free again", got)
	}
}
