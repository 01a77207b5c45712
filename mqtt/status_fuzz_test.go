package mqtt

import (
	"reflect"
	"testing"
)

// Heartbeats and pod status come from nodes: the decoders must never
// panic, and what they accept must survive a round trip unchanged.

func FuzzDecodeHeartbeat(f *testing.F) {
	good, err := sampleHeartbeat().Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"node":"n","seq":1,"intervalSeconds":10,"status":{"capacity":{"cpu":"1","memory":"1Gi"},` +
		`"allocatable":{"cpu":"1","memory":"1Gi"},"conditions":[{"type":"Ready","status":"True"}],` +
		`"nodeInfo":{"architecture":"arm64","operatingSystem":"linux","machineID":"","systemUUID":"","bootID":"",` +
		`"kernelVersion":"","osImage":"","containerRuntimeVersion":"","kubeletVersion":"","kubeProxyVersion":""}}}`))
	f.Add([]byte(`{"node":"n","seq":1,"status":{"capacity":{"cpu":"1e400"}}}`))
	f.Add([]byte(`{"node":"n","node":"m"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"node":"n","seq":1,"usage":{"window":10,"cpu":1,"mem":2,"pods":[{"ns":"a","name":"b","c":[{"n":"c","cpu":3,"mem":4}]}]}}`))
	f.Add([]byte(`{"node":"n","seq":1,"usage":{"window":10,"cpu":-1,"pods":[{"ns":"a","name":"b","c":[]}]}}`))
	f.Add([]byte(`{"node":"n","seq":1,"intervalSeconds":10,"annotations":{"bramble.io/vxlan-mac":"02:00:00:00:00:01",` +
		`"bramble.io/node-ip":"10.0.0.1"},"status":{"capacity":{},"allocatable":{},"conditions":[],"nodeInfo":{}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := DecodeHeartbeat(data)
		if err != nil {
			return
		}
		again, err := h.Encode()
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", data, err)
		}
		back, err := DecodeHeartbeat(again)
		if err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", again, err)
		}
		third, _ := back.Encode()
		if string(third) != string(again) {
			t.Fatalf("round trip: got %s, want %s", third, again)
		}
	})
}

func FuzzDecodePodStatus(f *testing.F) {
	good, err := samplePodStatus().Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"node":"n","pods":[{"namespace":"a","name":"b","uid":"u","status":{"phase":"Succeeded"}}]}`))
	f.Add([]byte(`{"node":"n","pods":[{"namespace":"a","name":"b","uid":"u","status":{"phase":"Running","startTime":"x"}}]}`))
	f.Add([]byte(`{"node":"n","pods":[]}`))
	f.Add([]byte(` [] `))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodePodStatus(data)
		if err != nil {
			return
		}
		again, err := r.Encode()
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", data, err)
		}
		back, err := DecodePodStatus(again)
		if err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", again, err)
		}
		third, _ := back.Encode()
		if string(third) != string(again) {
			t.Fatalf("round trip: got %s, want %s", third, again)
		}
	})
}

// FuzzDecodePodStatusFastAgrees holds the fast decoder to the strict one:
// whatever it takes, the strict decoder takes too, with the same value.
func FuzzDecodePodStatusFastAgrees(f *testing.F) {
	for _, r := range []*PodStatusReport{agentPodStatus(), samplePodStatus()} {
		data, err := r.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"node":"n","pods":[{"namespace":"a","name":"b","uid":"u","status":{"startTime":null,"conditions":[]}}]}`))
	f.Add([]byte(`{"node":"n","pods":[{"status":{"containerStatuses":[{"restartCount":-0,"state":{"terminated":{"exitCode":-2147483648}}}]}}]}`))
	f.Add([]byte(" {\"node\" : \"n\" ,\t\"pods\":[ ] }\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _, ok := decodePodStatusFast(data)
		if !ok {
			return
		}
		want, err := strictPodStatus(data)
		if err != nil {
			t.Fatalf("fast decoder took %q, the strict one refuses it: %v", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decoding %q: fast %+v, strict %+v", data, got, want)
		}
	})
}
