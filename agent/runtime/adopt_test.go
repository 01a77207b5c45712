package runtime

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/api/services/tasks/v1"
	"github.com/containerd/containerd/api/types/task"
	"github.com/containerd/containerd/namespaces"
	"github.com/containerd/containerd/oci"
)

// helperEnv makes the test binary act as a short-lived agent: it starts
// one ticking container and exits without stopping it.
const helperEnv = "BRAMBLE_RUNTIME_TEST_AGENT"

func runHelperAgent() error {
	args := strings.Split(os.Getenv(helperEnv), ",") // address,namespace,id,logPath[,console]
	if len(args) != 4 && (len(args) != 5 || args[4] != "console") {
		return fmt.Errorf("%s: got %q, want address,namespace,id,logPath[,console]", helperEnv, os.Getenv(helperEnv))
	}
	ctx := context.Background()
	rt, err := NewContainerd(ctx, ContainerdConfig{Address: args[0], Namespace: args[1]})
	if err != nil {
		return err
	}
	defer rt.Close()
	s := ContainerSpec{
		ID: args[2], PodUID: "uid-adopt", Name: "ticker", Image: busybox, LogPath: args[3],
		Labels:  map[string]string{"app": "ticker"},
		Command: []string{"sh", "-c", "i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.05; done"},
	}
	if len(args) == 5 { // a container with a stdin the agent holds
		s.Stdin, s.Command = true, []string{"sh", "-c", "echo first; while read x; do echo got-$x; done"}
	}
	return rt.RunContainer(ctx, s)
}

func TestContainersOutliveTheAgentAndAreAdopted(t *testing.T) {
	ns := testNamespace(t)
	rt := newRuntime(t, ns)
	importBusybox(t, rt, busybox, nil)
	logPath := filepath.Join(t.TempDir(), "0.log")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+strings.Join([]string{testDaemon(t).Address, ns, "ticker", logPath}, ","))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper agent: %v\n%s", err, out)
	}
	// The agent that started it is gone; a new one finds it by its labels.
	ctrs, err := rt.ListContainers(context.Background())
	if err != nil {
		t.Fatalf("ListContainers: %v", err)
	}
	if len(ctrs) != 1 {
		t.Fatalf("ListContainers: got %d containers, want 1: %+v", len(ctrs), ctrs)
	}
	got := ctrs[0]
	if got.ID != "ticker" || got.PodUID != "uid-adopt" || got.Name != "ticker" || got.State != StateRunning ||
		got.LogPath != logPath || got.Labels["app"] != "ticker" || len(got.Labels) != 1 {
		t.Errorf("adopted container: got %+v", got)
	}
	// Its log driver belongs to the shim, so the log keeps growing.
	waitFile(t, logPath, "stdout F tick 1\n", 10*time.Second)
	size := len(readFile(t, logPath))
	deadline := time.Now().Add(10 * time.Second)
	for len(readFile(t, logPath)) == size {
		if time.Now().After(deadline) {
			t.Fatalf("log stuck at %d bytes after the agent exited", size)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestListContainersOnlyOurs(t *testing.T) {
	ns := testNamespace(t)
	rt := newRuntime(t, ns)
	other := newRuntime(t, ns+"-other")
	img := importBusybox(t, rt, busybox, nil)
	importBusybox(t, other, busybox, nil)
	ctx := context.Background()
	for _, r := range []*Containerd{rt, other} {
		if err := r.RunContainer(ctx, ContainerSpec{ID: "mine", Image: busybox, Command: []string{"sleep", "30"}}); err != nil {
			t.Fatal(err)
		}
	}
	// A container someone else made in our namespace is not ours.
	cimg, err := rt.client.GetImage(ctx, img.Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.client.NewContainer(ctx, "foreign", containerd.WithNewSnapshot("foreign", cimg), containerd.WithNewSpec(oci.WithImageConfig(cimg))); err != nil {
		t.Fatal(err)
	}
	ctrs, err := rt.ListContainers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ctrs) != 1 || ctrs[0].ID != "mine" {
		t.Errorf("ListContainers: got %+v, want only %q of this namespace", ctrs, "mine")
	}
	if _, err := rt.ContainerStatus(ctx, "foreign"); err == nil {
		t.Errorf("ContainerStatus of a foreign container: got nil error, want ErrNotFound")
	}
}

// TestTaskVisibleToContainerd checks containerd's own view: its Tasks API
// and, as an outside witness, ctr.
func TestTaskVisibleToContainerd(t *testing.T) {
	rt := newRuntime(t, DefaultNamespace)
	importBusybox(t, rt, busybox, nil)
	ctx := context.Background()
	if err := rt.RunContainer(ctx, ContainerSpec{ID: "witnessed", Image: busybox, Command: []string{"sleep", "30"}}); err != nil {
		t.Fatal(err)
	}
	c, err := containerd.New(testDaemon(t).Address)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.TaskService().List(namespaces.WithNamespace(ctx, DefaultNamespace), &tasks.ListTasksRequest{})
	if err != nil {
		t.Fatalf("Tasks.List: %v", err)
	}
	found := false
	for _, p := range resp.Tasks {
		if p.ID == "witnessed" && p.Status == task.Status_RUNNING && p.Pid > 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("Tasks.List: got %v, want %q RUNNING", resp.Tasks, "witnessed")
	}
	out, err := exec.Command("ctr", "-a", testDaemon(t).Address, "-n", DefaultNamespace, "tasks", "ls").CombinedOutput()
	if err != nil {
		t.Fatalf("ctr tasks ls: %v\n%s", err, out)
	}
	if !regexpLine(string(out), `^witnessed\s+\d+\s+RUNNING$`) {
		t.Errorf("ctr tasks ls: got\n%s\nwant a line 'witnessed <pid> RUNNING'", out)
	}
}
