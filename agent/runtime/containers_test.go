package runtime

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

const busybox = "docker.io/library/busybox:test"

var criLine = regexp.MustCompile(`^(\S+) (stdout|stderr) ([FP]) (.*)$`)

func TestRunEchoExitsZeroWithCRILogLines(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	ctx := context.Background()
	logPath := filepath.Join(t.TempDir(), "pod", "echo", "0.log")
	before := time.Now()
	err := rt.RunContainer(ctx, ContainerSpec{
		ID: "echo", PodUID: "uid-1", Name: "echo", Image: "busybox:test", LogPath: logPath,
		Command: []string{"sh", "-c", "echo hello; echo oops >&2"},
	})
	if err != nil {
		t.Fatalf("RunContainer: %v", err)
	}
	st := waitState(t, rt, "echo", StateExited, 20*time.Second)
	if st.ExitCode != 0 || st.OOMKilled {
		t.Errorf("exit: got code %d oomKilled %v, want 0 false", st.ExitCode, st.OOMKilled)
	}
	if st.StartedAt.Before(before) || st.FinishedAt.Before(st.StartedAt) {
		t.Errorf("times: got started %v finished %v, want before <= started <= finished (before %v)", st.StartedAt, st.FinishedAt, before)
	}
	if st.PodUID != "uid-1" || st.Name != "echo" || st.Image != busybox || st.LogPath != logPath || !strings.HasPrefix(st.ImageDigest, "sha256:") {
		t.Errorf("identity: got %+v", st)
	}
	content := waitFile(t, logPath, "oops", 5*time.Second)
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	want := map[string]string{"stdout": "hello", "stderr": "oops"}
	if len(lines) != 2 {
		t.Fatalf("log: got %d lines %q, want 2", len(lines), lines)
	}
	for _, l := range lines {
		m := criLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("log line %q: not <time> <stream> <F|P> <text>", l)
		}
		if _, err := time.Parse(time.RFC3339Nano, m[1]); err != nil {
			t.Errorf("log line %q: time: %v", l, err)
		}
		if m[3] != "F" || want[m[2]] != m[4] {
			t.Errorf("log line %q: got %s %s %q, want F %q", l, m[2], m[3], m[4], want[m[2]])
		}
	}
}

func TestEnvArgsWorkingDirAndMounts(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	ro, rw := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ro, "greeting"), []byte("from-host"), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "0.log")
	script := `echo "env=$FOO image=$FROM_IMAGE"; echo "args=$0,$1"; echo "pwd=$(pwd)"; ` +
		`echo "ro=$(cat /cfg/greeting)"; touch /cfg/x 2>/dev/null || echo ro-refused; ` +
		`echo written > /out/file; echo "host=$(hostname)"`
	err := rt.RunContainer(context.Background(), ContainerSpec{
		ID: "env", Image: busybox, LogPath: logPath, WorkingDir: "/tmp",
		Command: []string{"sh", "-c"}, Args: []string{script, "first", "second"},
		Env:    []EnvVar{{Name: "FOO", Value: "bar baz"}},
		Mounts: []Mount{{HostPath: ro, ContainerPath: "/cfg", ReadOnly: true}, {HostPath: rw, ContainerPath: "/out"}},
	})
	if err != nil {
		t.Fatalf("RunContainer: %v", err)
	}
	if st := waitState(t, rt, "env", StateExited, 20*time.Second); st.ExitCode != 0 {
		t.Fatalf("exit code: got %d, want 0; log:\n%s", st.ExitCode, readFile(t, logPath))
	}
	host, _ := os.Hostname()
	content := waitFile(t, logPath, "host=", 5*time.Second)
	for _, want := range []string{"env=bar baz image=yes", "args=first,second", "pwd=/tmp", "ro=from-host", "ro-refused", "host=" + host} {
		if !strings.Contains(content, " stdout F "+want+"\n") {
			t.Errorf("log: got\n%s\nwant a stdout line %q", content, want)
		}
	}
	if got := readFile(t, filepath.Join(rw, "file")); got != "written\n" {
		t.Errorf("rw mount: host file got %q, want %q", got, "written\n")
	}
	spec := ociSpec(t, rt, "env")
	if spec.Process.OOMScoreAdj != nil {
		t.Errorf("oom_score_adj: got %d, want unset", *spec.Process.OOMScoreAdj)
	}
	for _, ns := range spec.Linux.Namespaces {
		if ns.Type == specs.NetworkNamespace || ns.Type == specs.UTSNamespace {
			t.Errorf("namespaces: got a new %s namespace, want the host's", ns.Type)
		}
	}
}

func TestRunContainerFailuresLeaveNothing(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	ctx := context.Background()
	err := rt.RunContainer(ctx, ContainerSpec{ID: "nocmd", Image: busybox, Command: []string{"/no/such/binary"}})
	if err == nil {
		t.Fatal("RunContainer with a missing binary: got nil error, want one")
	}
	if _, err := rt.ContainerStatus(ctx, "nocmd"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after failed start: got %v, want ErrNotFound", err)
	}
	err = rt.RunContainer(ctx, ContainerSpec{ID: "noimage", Image: "busybox:absent"})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("missing image: got %v, want ErrNotFound", err)
	}
	spec := ContainerSpec{ID: "twice", Image: busybox, Command: []string{"sleep", "30"}}
	if err := rt.RunContainer(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if err := rt.RunContainer(ctx, spec); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("same id twice: got %v, want an 'already exists' error", err)
	}
	if err := rt.RemoveContainer(ctx, "twice"); err != nil {
		t.Fatalf("RemoveContainer: %v", err)
	}
	if _, err := rt.ContainerStatus(ctx, "twice"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after remove: got %v, want ErrNotFound", err)
	}
	if err := rt.RemoveContainer(ctx, "twice"); !errors.Is(err, ErrNotFound) {
		t.Errorf("remove twice: got %v, want ErrNotFound", err)
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
