package bench

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/internal/porttest"
)

// benchStuckReader: a port-forward client asks for the 50 MiB and reads
// nothing; the server's and the agent's memory stay where they were.
func benchStuckReader(b *testing.B, st *agentSetup, bin string) {
	port := porttest.Free(b)
	pf := exec.Command(bin, "port-forward", "pod/web", fmt.Sprintf("%d:8080", port))
	pf.Env = append(os.Environ(), "KUBECONFIG="+st.s.Kubeconfig, "HOME="+st.s.Home)
	var pfOut strings.Builder
	pf.Stdout, pf.Stderr = &pfOut, &pfOut
	if err := pf.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = pf.Process.Kill(); _ = pf.Wait() }()
	defer func() {
		if b.Failed() {
			b.Logf("kubectl port-forward: %s", pfOut.String())
		}
	}()
	var conn net.Conn
	cluster.WaitFor(b, 30*time.Second, func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		conn = c
		return err == nil
	}, "port-forward to listen")
	defer conn.Close()
	server0, agent0 := vmRSS(b, st.s.PID()), vmRSS(b, st.a.PID())
	kubectl0 := vmRSS(b, pf.Process.Pid)
	if _, err := conn.Write([]byte("GET /big HTTP/1.0\r\n\r\n")); err != nil {
		b.Fatal(err)
	}
	time.Sleep(10 * time.Second) // the bytes in flight settle
	b.ReportMetric(float64(vmRSS(b, st.s.PID())-server0)/(1<<20), "server-MiB-added")
	b.ReportMetric(float64(vmRSS(b, st.a.PID())-agent0)/(1<<20), "agent-MiB-added")
	b.ReportMetric(float64(vmRSS(b, pf.Process.Pid)-kubectl0)/(1<<20), "kubectl-MiB-added")
}

// vmRSS reads a process's resident memory in bytes.
func vmRSS(b *testing.B, pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	b.Fatalf("no VmRSS for pid %d: %s", pid, raw[:min(len(raw), 200)])
	return 0
}
