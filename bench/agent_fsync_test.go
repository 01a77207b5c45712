package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// flipPeriod is how often the readiness of the flip pod changes: its probe
// passes in even periods of the wall clock and fails in odd ones.
const flipPeriod = 10 * time.Second

// flipPod is a busybox pod whose readiness probe flips every flipPeriod,
// so its status changes once per period (container ready, the Ready and
// ContainersReady conditions) and nothing else about it changes.
func flipPod(node string) string {
	secs := int(flipPeriod / time.Second)
	return `apiVersion: v1
kind: Pod
metadata:
  name: flip
  namespace: default
spec:
  nodeName: ` + node + `
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: ` + benchImage + `
    imagePullPolicy: Never
    command: ["sleep", "3600"]
    readinessProbe:
      exec:
        command: ["sh", "-c", "test $(( $(date +%s) / ` + fmt.Sprint(secs) + ` % 2 )) -eq 0"]
      periodSeconds: 1
      failureThreshold: 1
`
}

// BenchmarkAgentFsyncPerStatusChange counts the fsync-family system calls
// of a `bramble agent` process (strace -f on every thread) while one of
// its 10 pods changes status: the flip pod's readiness changes every 10 s,
// the other 9 pods sleep. Each iteration traces a window of 6 flips (2
// with -short) that starts and ends half a period away from any flip, and
// counts the pod changes a `kubectl get pods --watch-only` saw in it.
// Then it traces 4 label changes of another pod between two flips, one a
// second: each reaches the agent as one applied event
// (fsyncs/applied-event).
// Run it with -benchtime 1x (bench/fsync-per-status.sh).
func BenchmarkAgentFsyncPerStatusChange(b *testing.B) {
	if _, err := exec.LookPath("strace"); err != nil {
		b.Fatalf("this benchmark needs strace (hack/deps.sh installs it): %v", err)
	}
	flips := 6
	if testing.Short() {
		flips = 2
	}
	e := startAgentSetup(b, "bramble-bench-fsync", "pi-bench-fsync")
	var manifest strings.Builder
	for i := 0; i < 9; i++ {
		manifest.WriteString(benchPod(fmt.Sprintf("still-%d", i), e.node) + "---\n")
	}
	manifest.WriteString(flipPod(e.node))
	if _, stderr, err := e.s.Apply(manifest.String()); err != nil {
		b.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	cluster.WaitFor(b, 120*time.Second, func() bool {
		out, _, err := e.s.Kubectl("get", "pods", "-o", "jsonpath={.items[*].status.phase}")
		return err == nil && strings.Count(out, "Running") == 10
	}, "kubectl get pods to show 10 Running")
	b.ResetTimer()
	var syncs, changes, editSyncs, edits float64
	for i := 0; i < b.N; i++ {
		s, c := e.traceFlips(b, flips)
		syncs, changes = syncs+float64(s), changes+float64(c)
		s, c = e.traceEdits(b, i)
		editSyncs, edits = editSyncs+float64(s), edits+float64(c)
	}
	b.ReportMetric(syncs/float64(b.N), "fsyncs")
	b.ReportMetric(changes/float64(b.N), "status-changes")
	b.ReportMetric(syncs/max(changes, 1), "fsyncs/change")
	b.ReportMetric(editSyncs/max(edits, 1), "fsyncs/applied-event")
}

// traceEdits traces the agent while 4 label changes reach one of its
// pods, one a second (so each is its own applied event), between two
// flips (2 s after one, done before the next), and returns the fsync
// calls and the edits.
func (e *agentSetup) traceEdits(b *testing.B, round int) (syncs, edits int) {
	b.Helper()
	const n = 4
	trace := startStrace(b, e.a.PID())
	start := time.Now().Truncate(flipPeriod).Add(flipPeriod + 2*time.Second)
	time.Sleep(time.Until(start))
	for i := 0; i < n; i++ {
		e.s.MustKubectl("label", "pod", "still-0", fmt.Sprintf("edit=r%d-%d", round, i), "--overwrite")
		time.Sleep(time.Second)
	}
	end := time.Now()
	if end.Sub(start) > flipPeriod-2*time.Second {
		b.Fatalf("the edits took %s: too long to stay between two flips", end.Sub(start))
	}
	syncs = trace.stop(b, start, end)
	b.Logf("%d label changes of one pod: %d fsync calls", n, syncs)
	return syncs, n
}

// traceFlips traces the agent over flips readiness flips and returns the
// fsync calls it made and the pod changes the API showed meanwhile.
func (e *agentSetup) traceFlips(b *testing.B, flips int) (syncs, changes int) {
	b.Helper()
	watch := cluster.StartKubectl(b, e.s, "get", "pods", "--watch-only", "-o", "name")
	trace := startStrace(b, e.a.PID())
	// Start half a period after a flip, and stop half a period after the
	// last one: flips land well inside the window, settled or not.
	start := time.Now().Truncate(flipPeriod).Add(flipPeriod + flipPeriod/2)
	end := start.Add(time.Duration(flips) * flipPeriod)
	time.Sleep(time.Until(start))
	before := strings.Count(watch.Out(), "pod/")
	time.Sleep(time.Until(end))
	changes = strings.Count(watch.Out(), "pod/") - before
	syncs = trace.stop(b, start, end)
	watch.Stop()
	b.Logf("window of %d flips: %d fsync calls, %d pod changes seen by kubectl", flips, syncs, changes)
	return syncs, changes
}

// straceRun is strace attached to every thread of one process, writing
// the fsync-family calls it sees, with their times, to a file.
type straceRun struct {
	cmd    *exec.Cmd
	out    string
	stderr bytes.Buffer
}

func startStrace(b *testing.B, pid int) *straceRun {
	b.Helper()
	s := &straceRun{out: filepath.Join(b.TempDir(), "strace.out")}
	s.cmd = exec.Command("strace", "-f", "-qq", "-ttt", "-y", "-e", "signal=none",
		"-e", "trace=fsync,fdatasync,syncfs,sync,sync_file_range",
		"-o", s.out, "-p", strconv.Itoa(pid))
	s.cmd.Stderr = &s.stderr
	if err := s.cmd.Start(); err != nil {
		b.Fatalf("start strace: %v", err)
	}
	return s
}

// stop detaches strace and counts the calls that started in [from, to],
// logging how many touched each file.
func (s *straceRun) stop(b *testing.B, from, to time.Time) int {
	b.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGINT) // detach cleanly, flush
	_ = s.cmd.Wait()
	raw, err := os.ReadFile(s.out)
	if err != nil {
		b.Fatalf("strace output: %v (strace said %s)", err, s.stderr.String())
	}
	n, byFile := 0, map[string]int{}
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line) // PID TIME CALL(...
		if len(f) < 3 || !strings.Contains(f[2], "sync") || strings.HasPrefix(f[2], "<...") {
			continue // not a call, or a resumed one (counted where it started)
		}
		ts, err := strconv.ParseFloat(f[1], 64)
		at := time.Unix(0, int64(ts*1e9))
		if err == nil && !at.Before(from) && !at.After(to) {
			n++
			byFile[syncedFile(f[2])]++
		}
	}
	b.Logf("fsync calls by file: %v", byFile)
	return n
}

// syncedFile names the file of a traced call such as
// fsync(7</tmp/x/state/.rev.tmp-123>): temporary names lose their suffix.
func syncedFile(call string) string {
	_, path, ok := strings.Cut(call, "<")
	if !ok {
		return call
	}
	path, _, _ = strings.Cut(path, ">")
	if i := strings.Index(path, ".tmp-"); i >= 0 {
		path = path[:i] + ".tmp-*"
	}
	return filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
}
