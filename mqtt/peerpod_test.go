package mqtt

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPeerPodOf(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web", UID: "u1", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Ports: []corev1.ContainerPort{
			{Name: "http", ContainerPort: 8080}, {ContainerPort: 9000}, {Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP}}}}},
		Status: corev1.PodStatus{PodIP: "10.42.1.5", PodIPs: []corev1.PodIP{{IP: "10.42.1.5"}}}}
	got, ok := PeerPodOf(pod)
	want := &PeerPod{Metadata: PeerMeta{Namespace: "prod", Name: "web", UID: "u1", Labels: map[string]string{"app": "web"}}, IPs: []string{"10.42.1.5"},
		Ports: []PeerPort{{Name: "dns", Port: 53, Protocol: "UDP"}, {Name: "http", Port: 8080, Protocol: "TCP"}}}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, %v; want %+v", got, ok, want)
	}
	pod.Spec.HostNetwork = true
	if _, ok := PeerPodOf(pod); ok {
		t.Errorf("host-network pod: got a summary, want none")
	}
	pod.Spec.HostNetwork, pod.Status = false, corev1.PodStatus{}
	if _, ok := PeerPodOf(pod); ok {
		t.Errorf("pod without address: got a summary, want none")
	}
}

func TestDecodePeerPodNamesTheField(t *testing.T) {
	for _, tc := range []struct{ data, field string }{
		{`{"metadata":{"namespace":"Prod","name":"a"},"ips":["10.0.0.1"]}`, "metadata.namespace"},
		{`{"metadata":{"namespace":"p","name":"a/b"},"ips":["10.0.0.1"]}`, "metadata.name"},
		{`{"metadata":{"namespace":"p","name":"a"},"ips":[]}`, "ips"},
		{`{"metadata":{"namespace":"p","name":"a"},"ips":["10.0.0.01"]}`, "ips[0]"},
		{`{"metadata":{"namespace":"p","name":"a","labels":{"-x":"y"}},"ips":["10.0.0.1"]}`, "metadata.labels"},
		{`{"metadata":{"namespace":"p","name":"a"},"ips":["10.0.0.1"],"ports":[{"name":"http","port":0,"protocol":"TCP"}]}`, "ports[0].port"},
		{`{"metadata":{"namespace":"p","name":"a"},"ips":["10.0.0.1"],"ports":[{"name":"http","port":80,"protocol":"ICMP"}]}`, "ports[0].protocol"},
		{`{"metadata":{"namespace":"p","name":"a"},"ips":["10.0.0.1"],"extra":1}`, "extra"},
	} {
		_, err := DecodePeerPod([]byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: got %v, want an error naming %s", tc.data, err, tc.field)
		}
	}
}

func FuzzDecodePeerPod(f *testing.F) {
	f.Add([]byte(`{"metadata":{"namespace":"prod","name":"web","uid":"u","resourceVersion":"7","labels":{"app":"web"}},"ips":["10.42.1.5","fd00::5"],"ports":[{"name":"http","port":8080,"protocol":"TCP"}]}`))
	f.Add([]byte(`{"metadata":{"namespace":"p","name":"a"},"ips":["10.0.0.1"]}`))
	f.Add([]byte(`{"metadata":{"namespace":"p","name":"a"},"ips":["::ffff:10.0.0.1"]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePeerPod(data)
		if err != nil {
			return
		}
		again, err := p.Encode()
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", data, err)
		}
		back, err := DecodePeerPod(again)
		if err != nil || !reflect.DeepEqual(back, p) {
			t.Fatalf("round trip of %q: got %+v, %v; want %+v", data, back, err, p)
		}
	})
}
