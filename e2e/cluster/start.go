package cluster

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/internal/porttest"
)

// startAttempts bounds how often a first start picks new ports.
const startAttempts = 5

// Start (re)starts the server process on the same data dir and port, and
// returns how long it took from exec to the first 200 from /readyz.
//
// The ports of the first start were found free and released, and the
// process binds them only seconds later (a race-built binary, a loaded
// machine), while the other packages' tests bind ports all the while: when
// one of them took ours, the server exits "address already in use" and the
// first start is tried again on new ports. A restart keeps its ports (the
// test's clients and nodes know them) and fails the test instead.
func (s *Server) Start(extraArgs ...string) time.Duration {
	s.t.Helper()
	for attempt := 1; ; attempt++ {
		ready, err := s.launch(extraArgs)
		if err == nil {
			s.LastStart = ready
			return ready
		}
		if s.LastStart != 0 || attempt == startAttempts || !strings.Contains(s.logs.String(), "address already in use") {
			s.t.Fatal(err)
		}
		s.t.Logf("bramble server on ports %d and %d: address already in use; starting on new ports", s.Port, s.MQTTPort)
		s.Port, s.MQTTPort = porttest.Free(s.t), porttest.Free(s.t)
	}
}

// launch runs the server process once and waits until it is ready; the
// error says why it exited first.
func (s *Server) launch(extraArgs []string) (time.Duration, error) {
	s.t.Helper()
	if s.ClusterCIDR != "" && !hasFlag(extraArgs, "--cluster-cidr") {
		extraArgs = append([]string{"--cluster-cidr", s.ClusterCIDR}, extraArgs...)
	}
	args := append([]string{"server", "--data-dir", s.DataDir, "--https-listen-port", strconv.Itoa(s.Port),
		"--bind-address", s.Host, "--write-kubeconfig", s.Kubeconfig,
		"--mqtt-listen-port", strconv.Itoa(s.MQTTPort)}, extraArgs...)
	if s.AgentArgs == nil {
		args = append(args, "--disable-agent")
	}
	args = append(args, s.AgentArgs...)
	s.cmd = exec.Command(Bin, args...)
	s.logs = &syncBuffer{}
	s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
	begin := time.Now()
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start bramble server: %v", err)
	}
	s.exited = make(chan struct{})
	go func(c *exec.Cmd, done chan struct{}) { s.exitErr = c.Wait(); close(done) }(s.cmd, s.exited)
	return s.waitReady(begin)
}

// waitReady polls /readyz every 5 ms, then waits for the kubeconfig file;
// it fails when the process exits first.
func (s *Server) waitReady(begin time.Time) (time.Duration, error) {
	s.t.Helper()
	var ready time.Duration
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return 0, fmt.Errorf("bramble server exited before ready: %v\n%s", s.exitErr, s.logs)
		default:
		}
		resp, err := client.Get(s.URL() + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 && ready == 0 {
				ready = time.Since(begin)
			}
		}
		if ready != 0 {
			if _, err := os.Stat(s.Kubeconfig); err == nil {
				return ready, nil
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.t.Fatalf("bramble server not ready after 20s\n%s", s.logs)
	return 0, nil
}
