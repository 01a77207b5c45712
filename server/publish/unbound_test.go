package publish

import (
	"encoding/json"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// FuzzUnbound: what unbound calls unbound decodes with no node name, and
// is valid JSON. (A value of the wrong type, which a stored pod never
// holds, is the one decoding error unbound does not look for.)
func FuzzUnbound(f *testing.F) {
	for _, s := range []string{`{"spec":{"containers":[]},"status":{}}`, `{"spec":{"nodeName":"pi-1"}}`,
		`{"Spec":{"NodeName":"x"}}`, `{"spec":null,"spec":{"nodename":"y"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !unbound(data) {
			return
		}
		var pod corev1.Pod
		err := json.Unmarshal(data, &pod)
		var syntax *json.SyntaxError
		if pod.Spec.NodeName != "" || errors.As(err, &syntax) {
			t.Errorf("unbound(%q) = true; decoded: node %q, err %v", data, pod.Spec.NodeName, err)
		}
	})
}

func TestUnbound(t *testing.T) {
	stored, err := json.Marshal(&corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		data string
		want bool
	}{
		{string(stored), true},
		{`{"spec":{"containers":[]}}`, true},
		{`{}`, true},
		{`{"spec":null}`, true},
		{`{"status":{"nominatedNodeName":"pi-1"},"spec":{}}`, true},
		{`{"spec":{"nodeName":"pi-1"}}`, false},
		{`{"spec":{"nodeName":""}}`, false}, // left to the decoder
		{`{"spec":{"NODENAME":"pi-1"}}`, false},
		{`{"spec":{"node\u004eame":"pi-1"}}`, false},
		{`{"SPEC":{"nodeName":"pi-1"}}`, false},
		{`{"\u017fpec":{"nodeName":"pi-1"}}`, false},
		{"{\"\u017fpec\":{\"nodeName\":\"pi-1\"}}", false},
		{`{"spec":{},"spec":{"nodeName":"pi-1"}}`, false},
		{`{"spec":{"containers":"x"}}`, true}, // a type error: see FuzzUnbound
		{`{"spec":5}`, false},
		{`{"spec":{}`, false},
		{`[]`, false},
		{``, false},
	} {
		if got := unbound([]byte(tc.data)); got != tc.want {
			t.Errorf("unbound(%s) = %v, want %v", tc.data, got, tc.want)
		}
	}
}
