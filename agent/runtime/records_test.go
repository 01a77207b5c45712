package runtime

import (
	"context"
	"errors"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/containers"
	"github.com/containerd/containerd/namespaces"
)

func TestRecordReadBeforeAForgetIsNotKept(t *testing.T) {
	var r records
	before := r.now()
	r.forget("a")
	r.keep(before, containers.Container{ID: "a"})
	if _, ok := r.get("a"); ok {
		t.Fatalf("got a kept record read before a forget, want none")
	}
	r.keep(r.now(), containers.Container{ID: "a", Spec: nil, Labels: map[string]string{"k": "v"}})
	if got, ok := r.get("a"); !ok || got.Labels["k"] != "v" {
		t.Fatalf("got %+v %v, want the record kept", got, ok)
	}
}

// TestStatusFromAKeptRecordFollowsTheTask runs a container, reads its
// status twice (the second from the kept record), then ends its task and
// removes it behind the runtime's back: the status must follow.
func TestStatusFromAKeptRecordFollowsTheTask(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	ctx := context.Background()
	err := rt.RunContainer(ctx, ContainerSpec{ID: "kept", PodUID: "uid-k", Name: "main", Image: "busybox:test",
		Command: []string{"sleep", "60"}, Labels: map[string]string{"app": "k"}})
	if err != nil {
		t.Fatalf("RunContainer: %v", err)
	}
	first := waitState(t, rt, "kept", StateRunning, 20*time.Second)
	if _, ok := rt.records.get("kept"); !ok {
		t.Fatalf("no record kept for a running container")
	}
	second, err := rt.ContainerStatus(ctx, "kept")
	if err != nil {
		t.Fatalf("ContainerStatus: %v", err)
	}
	if !reflect.DeepEqual(second, first) {
		t.Errorf("status from the kept record: got %+v, want %+v", second, first)
	}
	if first.StartedAt.IsZero() || first.Pid == 0 || first.PodUID != "uid-k" || first.Labels["app"] != "k" {
		t.Errorf("status: got %+v, want a start time, a pid, the pod uid and the user's labels", first)
	}
	usage, err := rt.Usage(ctx)
	if err != nil || len(usage) != 1 || usage[0].PodUID != "uid-k" || usage[0].Name != "main" {
		t.Errorf("Usage: got %+v, %v, want one container of pod uid-k named main", usage, err)
	}

	other, err := containerd.New(testDaemon(t).Address)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	octx := namespaces.WithNamespace(ctx, rt.cfg.Namespace)
	ctr, err := other.LoadContainer(octx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	task, err := ctr.Task(octx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Kill(octx, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if st := waitState(t, rt, "kept", StateExited, 20*time.Second); st.ExitCode != 137 {
		t.Errorf("exit code: got %d, want 137", st.ExitCode)
	}
	if _, err := task.Delete(octx); err != nil {
		t.Fatal(err)
	}
	if err := ctr.Delete(octx, containerd.WithSnapshotCleanup); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.ContainerStatus(ctx, "kept"); !errors.Is(err, ErrNotFound) {
		t.Errorf("status of a removed container: got %v, want ErrNotFound", err)
	}
}
