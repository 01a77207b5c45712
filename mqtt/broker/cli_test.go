package broker_test

import (
	"bufio"
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt/broker"
)

// needBinary returns the path of a program the tests drive; a missing one
// fails the test (CI installs mosquitto and mosquitto-clients).
func needBinary(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found (apt-get install -y mosquitto mosquitto-clients): %v", name, err)
	}
	return p
}

// credArgs are the TLS arguments of mosquitto_sub/pub for addr and the
// credentials in dir.
func credArgs(t testing.TB, addr, dir, clientID string) []string {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("address %q: %v", addr, err)
	}
	return []string{"-h", host, "-p", port, "-V", "mqttv311", "-i", clientID,
		"--cafile", filepath.Join(dir, broker.CredentialsCAFile),
		"--cert", filepath.Join(dir, broker.CredentialsCertFile),
		"--key", filepath.Join(dir, broker.CredentialsKeyFile)}
}

// mosquittoSub is a running mosquitto_sub. Its messages are printed as
// "MSG <topic> <payload>"; -d adds its protocol log, which tells when the
// SUBACK came.
type mosquittoSub struct {
	cmd   *exec.Cmd
	lines chan string
	mu    sync.Mutex
	out   []string
}

func startMosquittoSub(t testing.TB, addr, dir, clientID string, topics ...string) *mosquittoSub {
	t.Helper()
	args := append(credArgs(t, addr, dir, clientID), "-q", "1", "-d", "-F", "MSG %t %p")
	for _, tp := range topics {
		args = append(args, "-t", tp)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// stdbuf: mosquitto_sub's stdout is a pipe here, which stdio would
	// buffer until exit.
	args = append([]string{"-oL", needBinary(t, "mosquitto_sub")}, args...)
	cmd := exec.CommandContext(ctx, needBinary(t, "stdbuf"), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("start mosquitto_sub: %v", err)
	}
	s := &mosquittoSub{cmd: cmd, lines: make(chan string, 1000)}
	go s.read(stdout)
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	return s
}

func (s *mosquittoSub) read(r interface{ Read([]byte) (int, error) }) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		s.mu.Lock()
		s.out = append(s.out, sc.Text())
		s.mu.Unlock()
		s.lines <- sc.Text()
	}
	close(s.lines)
}

// waitLine waits for a line starting with prefix and returns it.
func (s *mosquittoSub) waitLine(t testing.TB, prefix string) string {
	t.Helper()
	deadline := time.After(waitLong)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatalf("mosquitto_sub ended before %q; output:\n%s", prefix, s.output())
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-deadline:
			t.Fatalf("waited %s for %q from mosquitto_sub; output:\n%s", waitLong, prefix, s.output())
		}
	}
}

// messages returns the messages printed so far, as "topic payload".
func (s *mosquittoSub) messages() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var msgs []string
	for _, l := range s.out {
		if m, ok := strings.CutPrefix(l, "MSG "); ok {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

func (s *mosquittoSub) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.out, "\n")
}

// mosquittoPub publishes one message with the real client and returns its
// output; a refusal is not an error here, delivery is what tests check.
func mosquittoPub(t testing.TB, addr, dir, clientID, topic string, qos int, payload string) string {
	t.Helper()
	args := append(credArgs(t, addr, dir, clientID), "-q", string(rune('0'+qos)), "-t", topic, "-m", payload)
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	out, _ := exec.CommandContext(ctx, needBinary(t, "mosquitto_pub"), args...).CombinedOutput()
	return string(out)
}
