package mqtt

import (
	"reflect"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
)

// decodeFast takes v2's answer only when v2 accepts; these hold v2 to
// accepting nothing decodeStrict refuses, and to decoding it to the very
// same value.

func FuzzDecodeFastAgreesPodStatus(f *testing.F) {
	for _, seed := range podStatusSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFastAgrees[PodStatusReport](t, data, MaxPodStatusBytes) })
}

func FuzzDecodeFastAgreesHeartbeat(f *testing.F) {
	good, err := sampleHeartbeat().Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"node":"n","seq":1,"status":{"capacity":{"cpu":"1e400"}}}`))
	f.Add([]byte(`{"node":"n","status":{"temperatureCelsius":1e400}}`))
	f.Add([]byte(`{"node":"n","usage":{"window":10,"cpu":1.5,"mem":2,"pods":[{"ns":"a","name":"b","c":[{"n":"c","cpu":3,"mem":4}]}]}}`))
	f.Add([]byte(`{"node":"n","labels":{"a":"b","a":"c"}}`))
	f.Add([]byte(`{"node":"n","seq":-0,"intervalSeconds":1e1}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkFastAgrees[Heartbeat](t, data, MaxHeartbeatBytes) })
}

func podStatusSeeds(tb testing.TB) [][]byte {
	good, err := samplePodStatus().Encode()
	if err != nil {
		tb.Fatal(err)
	}
	return [][]byte{good, hollowReport(tb, 2),
		[]byte(`{"node":"n","pods":[{"namespace":"a","name":"b","uid":"u","status":{"phase":"Running","startTime":"x"}}]}`),
		[]byte(`{"node":"n","pods":[{"namespace":"a","name":"b","uid":"u","status":{"phase":"Running","startTime":null}}]}`),
		[]byte(`{"node":"n","Node":"m","pods":null}`),
		[]byte(`{"node":"n","pods":[{"namespace":"a","name":"b","uid":"u","status":{"phase":"Running",` +
			`"containerStatuses":[{"name":"c","restartCount":1e2,"allocatedResources":{"cpu":"1","cpu":"2"}}]}}]}`),
		[]byte(`{"node":"n\ud800","pods":[{"namespace":"a","name":"b","uid":"u\u00e9","status":{"phase":"Running"}}]}`),
		[]byte("{\"node\":\"n\xff\"}"),
		[]byte(`{"n\u006fde":"n","pods":[{"namespace":"a","name":"b","uid":"u","finished":"true","status":{"phase":"Running"}}]}`),
		[]byte(`{"node":"n","pods":[{"namespace":"a","name":"b","uid":"u","status":{"phase":"Running","Phase":"Failed"}}]}`),
		[]byte(`{"node":"n","pods":[{"namespace":"a","name":"b","uid":"u","status":{"phase":"Running",` +
			`"containerStatuses":[{"name":"c","restartCount":-0,"state":{"terminated":{"exitCode":99999999999}}}]}}]}`),
		[]byte(`{"node":"n","pods":[{"namespace":"a","name":"b","uid":"u","status":{"phase":"Running","conditions":` +
			`[{"type":"Ready","status":"True","lastTransitionTime":"2024-01-01T00:00:00+02:00","lastProbeTime":1}]}}]}`),
		[]byte(` {"node":"n","pods":[{"namespace":"a","name":"b","uid":"u","status":{"phase":"Running",` +
			`"resize":"","hostIPs":[{"ip":"1.2.3.4","extra":1}]}}]} `),
	}
}

// checkFastAgrees fails when v2 accepts data that decodeStrict refuses or
// decodes differently.
func checkFastAgrees[T any](t *testing.T, data []byte, limit int) {
	var fast T
	if len(data) > limit || !startsObject(data) || jsonv2.Unmarshal(data, &fast, fastOptions) != nil {
		return
	}
	var strict T
	if err := decodeStrict(data, limit, &strict); err != nil {
		t.Fatalf("v2 accepts %q, decodeStrict refuses it: %v", data, err)
	}
	if !reflect.DeepEqual(fast, strict) {
		t.Fatalf("decoding %q: v2 got %+v, decodeStrict %+v", data, fast, strict)
	}
}
