package mqtt

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// agentPodStatus is a report as agents send one: every field the fast
// decoder knows, set, and nulls where encoding/json writes them (the
// zero lastProbeTime).
func agentPodStatus() *PodStatusReport {
	now := metav1.Now().Rfc3339Copy()
	yes, no := true, false
	running := corev1.ContainerStatus{Name: "web", Ready: true, RestartCount: 2, Image: "nginx:1.27",
		ImageID: "docker.io/library/nginx@sha256:ab", ContainerID: "containerd://c1", Started: &yes,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: -1,
			Signal: 9, Reason: "OOMKilled", Message: "out of memory", StartedAt: now, FinishedAt: now, ContainerID: "containerd://c0"}}}
	waiting := corev1.ContainerStatus{Name: "side", Image: "busybox", Started: &no,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "back-off pulling"}}}
	st := corev1.PodStatus{Phase: corev1.PodRunning, Message: "ünïcode", Reason: "R", NominatedNodeName: "n2",
		HostIP: "10.0.0.5", HostIPs: []corev1.HostIP{{IP: "10.0.0.5"}}, PodIP: "10.42.0.7",
		PodIPs: []corev1.PodIP{{IP: "10.42.0.7"}, {IP: "fd00::7"}}, StartTime: &now,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodInitialized, Status: corev1.ConditionFalse, Reason: "R", Message: "M", LastProbeTime: now}},
		InitContainerStatuses: []corev1.ContainerStatus{waiting}, ContainerStatuses: []corev1.ContainerStatus{running, waiting},
		EphemeralContainerStatuses: []corev1.ContainerStatus{running}, QOSClass: corev1.PodQOSBurstable,
		Resize: corev1.PodResizeStatusProposed}
	return &PodStatusReport{Node: "pi-0", Pods: []PodStatusEntry{
		{Namespace: "default", Name: "web", UID: "u-1", Status: st},
		{Namespace: "default", Name: "done", UID: "u-2", Finished: true, Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}}}
}

// strictPodStatus is what the strict decoder makes of data.
func strictPodStatus(data []byte) (*PodStatusReport, error) {
	var r PodStatusReport
	err := decodeStrict(data, MaxPodStatusBytes, &r)
	return &r, err
}

func TestDecodePodStatusFastTakesAgentReports(t *testing.T) {
	for _, in := range []*PodStatusReport{agentPodStatus(), samplePodStatus()} {
		data, err := in.Encode()
		if err != nil {
			t.Fatal(err)
		}
		got, _, ok := decodePodStatusFast(data)
		if !ok {
			t.Fatalf("fast decoder gave up on an agent's report %s", data)
		}
		want, err := strictPodStatus(data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("fast decoder: got %+v, want %+v", got, want)
		}
	}
}

func TestDecodePodStatusFastGivesUp(t *testing.T) {
	base := `{"node":"n","pods":[{"namespace":"a","name":"b","uid":"u","status":{"phase":"Running"%s}}]}`
	for _, extra := range []string{
		`,"phase":"Running"`, // repeated name
		`,"Phase":"Running"`, // other case
		`,"nope":1`,          // unknown name
		`,"message":"a\"b"`,  // escape
		`,"message":"\xff"`,  // invalid UTF-8
		`,"containerStatuses":[{"restartCount":1.0}]`,               // float into an integer
		`,"containerStatuses":[{"restartCount":01}]`,                // leading zero
		`,"containerStatuses":[{"restartCount":2147483648}]`,        // overflow
		`,"containerStatuses":[null]`,                               // null element
		`,"startTime":"yesterday"`,                                  // not RFC 3339
		`,"conditions":[{"type":"Ready"},]`,                         // trailing comma
		`,"containerStatuses":[{"ready":truex}]`,                    // bad literal
		`,"containerStatuses":[{"allocatedResources":{"cpu":"1"}}]`, // left to the strict decoder
	} {
		data := []byte(strings.Replace(base, "%s", extra, 1))
		if _, _, ok := decodePodStatusFast(data); ok {
			t.Errorf("fast decoder took %s, want it to give up", data)
		}
	}
	if _, _, ok := decodePodStatusFast([]byte(strings.Replace(base, "%s", "", 1) + " x")); ok {
		t.Error("fast decoder took trailing data, want it to give up")
	}
}

func TestDecodePodStatusErrorsStayStrict(t *testing.T) {
	data := `{"node":"n","pods":[{"namespace":"a","name":"b","uid":"u","status":{"phase":"Running","phase":"Running"}}]}`
	_, err := DecodePodStatus([]byte(data))
	if err == nil || !strings.Contains(err.Error(), `duplicate field "pods[0].status.phase"`) {
		t.Errorf("got %v, want the strict decoder's duplicate field error", err)
	}
}

// hollowBatch is a report as a hollow node sends one for n pods of one
// Deployment (bench/hollow/hollownode/podstatus.go).
func hollowBatch(n int) *PodStatusReport {
	now := metav1.Now().Rfc3339Copy()
	r := &PodStatusReport{Node: "hollow-7"}
	for i := range n {
		yes := true
		name := fmt.Sprintf("web-5d8f7-%05d", i)
		r.Pods = append(r.Pods, PodStatusEntry{Namespace: "default", Name: name, UID: fmt.Sprintf("9f0e%04d-1c2d-4e5f", i),
			Status: corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "10.0.0.7", HostIPs: []corev1.HostIP{{IP: "10.0.0.7"}},
				PodIP: fmt.Sprintf("10.42.7.%d", i), PodIPs: []corev1.PodIP{{IP: fmt.Sprintf("10.42.7.%d", i)}}, StartTime: &now,
				Conditions: []corev1.PodCondition{{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
					{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
					{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Image: "nginx:1.27", ImageID: "hollow://nginx:1.27",
					ContainerID: "hollow://" + name + "-web", Ready: true, Started: &yes,
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}}})
	}
	return r
}

func BenchmarkDecodePodStatus(b *testing.B) {
	data, err := agentPodStatus().Encode()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := DecodePodStatus(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	batch, err := hollowBatch(10).Encode()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("hollow-10", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := DecodePodStatus(batch); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("strict", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := strictPodStatus(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestDecodePodStatusHashes(t *testing.T) {
	in := agentPodStatus()
	data, _ := in.Encode()
	_, hashes, err := DecodePodStatusHashed(data)
	if err != nil || len(hashes) != len(in.Pods) {
		t.Fatalf("got %d hashes, %v, want %d", len(hashes), err, len(in.Pods))
	}
	again, _ := in.Encode()
	if _, h2, _ := DecodePodStatusHashed(again); !reflect.DeepEqual(h2, hashes) {
		t.Errorf("the same report: got hashes %v, want %v", h2, hashes)
	}
	in.Pods[0].Status.ContainerStatuses[1].State.Waiting.Message = "other"
	changed, _ := in.Encode()
	if _, h3, _ := DecodePodStatusHashed(changed); h3[0] == hashes[0] || h3[1] != hashes[1] {
		t.Errorf("one pod's status changed: got hashes %v, had %v", h3, hashes)
	}
	if _, h4, err := DecodePodStatusHashed([]byte(`{"node":"n","pods":[{"namespace":"a","name":"b","uid":"u","status":{"phase":"Running","message":"a\"b"}}]}`)); err != nil || h4 != nil {
		t.Errorf("a report the strict decoder reads: got hashes %v, %v, want none", h4, err)
	}
}

// TestPodStatusReportedTwice: a pod twice in a batch is refused, whether
// checkPods compares the few entries pairwise or many through a map.
func TestPodStatusReportedTwice(t *testing.T) {
	for _, n := range []int{2, fewPods, fewPods + 1, 40} {
		r := hollowBatch(n)
		if err := r.check(); err != nil {
			t.Fatalf("%d pods: %v", n, err)
		}
		r.Pods[n-1].Name = r.Pods[n/2-1].Name
		want := fmt.Sprintf("pods[%d]: default/%s is reported twice", n-1, r.Pods[n-1].Name)
		if err := r.check(); err == nil || err.Error() != want {
			t.Errorf("%d pods, the last twice: got %v, want %s", n, err, want)
		}
	}
}
