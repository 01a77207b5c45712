package nodestatus

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// runningReport is a node's report of a started pod: Running, its one
// container ready, the kubelet's four conditions.
func runningReport() (stored, reported *corev1.PodStatus) {
	now := metav1.NewTime(time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC))
	yes := true
	stored = &corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBurstable,
		Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now}}}
	conds := []corev1.PodCondition{}
	for _, ty := range []corev1.PodConditionType{"PodReadyToStartContainers", corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		conds = append(conds, corev1.PodCondition{Type: ty, Status: corev1.ConditionTrue, LastTransitionTime: now})
	}
	reported = &corev1.PodStatus{Phase: corev1.PodRunning, Conditions: conds, HostIP: "10.0.0.1", PodIP: "10.42.0.5",
		PodIPs: []corev1.PodIP{{IP: "10.42.0.5"}}, HostIPs: []corev1.HostIP{{IP: "10.0.0.1"}}, StartTime: &now,
		ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Started: &yes, Image: "registry.lan/app:v1",
			ImageID: "sha256:0123", ContainerID: "containerd://abc",
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}}
	return stored, reported
}

func BenchmarkMergeRunningReport(b *testing.B) {
	stored, reported := runningReport()
	b.ReportAllocs()
	for range b.N {
		next := mergePodStatus(stored, reported)
		if podStatusEqual(next, stored) {
			b.Fatal("equal")
		}
	}
}

func BenchmarkMergeRepeat(b *testing.B) {
	_, reported := runningReport()
	stored := mergePodStatus(&corev1.PodStatus{}, reported)
	b.ReportAllocs()
	for range b.N {
		next := mergePodStatus(stored, reported)
		if !podStatusEqual(next, stored) {
			b.Fatal("differs")
		}
	}
}

// TestPodStatusEqualAgreesWithSemantic: the quick checks before the
// reflection never change podStatusEqual's answer, for statuses that
// differ in each field they look at, and in others they do not.
func TestPodStatusEqualAgreesWithSemantic(t *testing.T) {
	_, base := runningReport()
	variants := []func(s *corev1.PodStatus){
		func(s *corev1.PodStatus) {},
		func(s *corev1.PodStatus) { s.Phase = corev1.PodPending },
		func(s *corev1.PodStatus) { s.Reason = "NodeDiskFull" },
		func(s *corev1.PodStatus) { s.Message = "full" },
		func(s *corev1.PodStatus) { s.PodIP = "10.42.0.6" },
		func(s *corev1.PodStatus) { s.HostIP = "10.0.0.2" },
		func(s *corev1.PodStatus) { s.Conditions = s.Conditions[:2] },
		func(s *corev1.PodStatus) { s.Conditions[1].Status = corev1.ConditionFalse },
		func(s *corev1.PodStatus) { s.Conditions[1].Type = "Other" },
		func(s *corev1.PodStatus) { s.Conditions[2].Message = "changed" },
		func(s *corev1.PodStatus) { s.Conditions = nil },
		func(s *corev1.PodStatus) { s.Conditions = []corev1.PodCondition{} },
		func(s *corev1.PodStatus) { s.ContainerStatuses = nil },
		func(s *corev1.PodStatus) { s.ContainerStatuses[0].Ready = false },
		func(s *corev1.PodStatus) { s.ContainerStatuses[0].RestartCount = 2 },
		func(s *corev1.PodStatus) { s.ContainerStatuses[0].ImageID = "sha256:4567" },
		func(s *corev1.PodStatus) { s.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init"}} },
		func(s *corev1.PodStatus) { s.InitContainerStatuses = []corev1.ContainerStatus{} },
		func(s *corev1.PodStatus) { s.QOSClass = corev1.PodQOSGuaranteed },
		func(s *corev1.PodStatus) { s.StartTime = nil },
	}
	statuses := make([]*corev1.PodStatus, len(variants))
	for i, v := range variants {
		statuses[i] = base.DeepCopy()
		v(statuses[i])
	}
	for i, a := range statuses {
		for j, b := range statuses {
			if got, want := podStatusEqual(a, b), equality.Semantic.DeepEqual(a, b); got != want {
				t.Errorf("variants %d and %d: podStatusEqual %v, Semantic.DeepEqual %v", i, j, got, want)
			}
		}
	}
}

// buildTwice is a NewStatusWriter that builds the object twice, as a
// registry retrying the write does, and keeps both.
type buildTwice struct {
	Writer
	built []*corev1.Pod
}

func (w *buildTwice) UpdateStatusNew(_ context.Context, build func() api.Object) (api.Object, error) {
	w.built = append(w.built, build().(*corev1.Pod), build().(*corev1.Pod))
	return w.built[1], nil
}

// plainWriter is a Writer without UpdateStatusNew.
type plainWriter struct {
	Writer
	got *corev1.Pod
}

func (w *plainWriter) UpdateStatus(_ context.Context, obj api.Object) (api.Object, error) {
	w.got = obj.(*corev1.Pod)
	return obj, nil
}

// TestWriteStatusHandsOverTheMergedPod: a NewStatusWriter gets the pod
// statusPod made first, and a fresh merge, sharing nothing with it, when
// it builds again; another Writer gets the stored pod's metadata and spec
// with the merged status.
func TestWriteStatusHandsOverTheMergedPod(t *testing.T) {
	storedStatus, reported := runningReport()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u", ResourceVersion: "7",
		Labels: map[string]string{"app": "a"}}, Spec: corev1.PodSpec{NodeName: "pi-1"}, Status: *storedStatus}
	upd := statusPod(pod, reported)
	if upd == nil || upd.Spec.NodeName != "" || upd.Labels != nil || upd.ResourceVersion != "7" || upd.UID != "u" {
		t.Fatalf("statusPod = %+v, want the pod's name, UID and resourceVersion only", upd)
	}
	nw := &buildTwice{}
	m := &Monitor{cfg: Config{Writer: nw}}
	if err := m.writeStatus(context.Background(), pod, upd, reported); err != nil {
		t.Fatal(err)
	}
	if nw.built[0] != upd {
		t.Error("first build: not the pod statusPod made")
	}
	if !equality.Semantic.DeepEqual(nw.built[0], nw.built[1]) {
		t.Errorf("second build: got %+v, want %+v", nw.built[1], nw.built[0])
	}
	if &nw.built[1].Status.ContainerStatuses[0] == &upd.Status.ContainerStatuses[0] ||
		&nw.built[1].Status.ContainerStatuses[0] == &reported.ContainerStatuses[0] ||
		&upd.Status.ContainerStatuses[0] == &reported.ContainerStatuses[0] {
		t.Error("the built pods share their container statuses with each other or the report")
	}
	pw := &plainWriter{}
	m = &Monitor{cfg: Config{Writer: pw}}
	if err := m.writeStatus(context.Background(), pod, upd, reported); err != nil {
		t.Fatal(err)
	}
	if pw.got.Spec.NodeName != "pi-1" || pw.got.Labels["app"] != "a" || pw.got.Status.Phase != corev1.PodRunning {
		t.Errorf("plain writer got %+v, want the stored metadata and spec with the merged status", pw.got)
	}
}

var podSink *corev1.Pod

// mergeCalled is mergePodStatus called, not inlined: its status on the
// heap, as the write path had it before statusPod.
var mergeCalled = mergePodStatus

// BenchmarkStatusPod: the pod a status write hands the registry, merged
// in place (statusPod) and, for comparison, merged apart and copied in.
func BenchmarkStatusPod(b *testing.B) {
	stored, reported := runningReport()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u", ResourceVersion: "7"}, Status: *stored}
	b.Run("in-place", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if podSink = statusPod(pod, reported); podSink == nil {
				b.Fatal("nil")
			}
		}
	})
	b.Run("copied", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			next := mergeCalled(&pod.Status, reported)
			upd := &corev1.Pod{TypeMeta: pod.TypeMeta, ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace,
				UID: pod.UID, ResourceVersion: pod.ResourceVersion}, Status: *next}
			podSink = upd // handed over, as to the registry
		}
	})
}

// mergePodStatus is mergePodStatusInto's merge in a status of its own,
// nil where it gives false.
func mergePodStatus(stored, reported *corev1.PodStatus) *corev1.PodStatus {
	out := new(corev1.PodStatus)
	if !mergePodStatusInto(out, stored, reported) {
		return nil
	}
	return out
}
