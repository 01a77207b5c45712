package broker_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
)

// shippedConfig is the mosquitto configuration bramble ships.
const shippedConfig = "../../packaging/mosquitto/bramble.conf"

// mosquitto is Debian's mosquitto started by the test with the shipped
// configuration, only its paths and port changed.
type mosquitto struct {
	dir, conf, pidFile string
	cmd                *exec.Cmd
	logged             chan struct{} // closed when the process's log is read to its end
	mu                 sync.Mutex
	log                []string
	grew               *sync.Cond
	// barrier returns once mosquitto handled a request sent after it was
	// called (a QoS 1 publish of the server's Bus).
	barrier func(t testing.TB)
}

// mosquittoBinary finds the broker (in /usr/sbin, often outside PATH).
func mosquittoBinary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("mosquitto"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/mosquitto"); err == nil {
		return "/usr/sbin/mosquitto"
	}
	return needBinary(t, "mosquitto") // fails the test
}

// writeMosquittoConfig turns the shipped configuration into one for dir
// and port. mosquitto started as root drops to the user "mosquitto", which
// could not read the test's files: keep the test's user.
func writeMosquittoConfig(t testing.TB, dir string, port int) string {
	t.Helper()
	data, err := os.ReadFile(shippedConfig)
	if err != nil {
		t.Fatalf("read shipped config: %v", err)
	}
	conf := strings.ReplaceAll(string(data), "/etc/mosquitto/bramble/", dir+"/")
	if !strings.Contains(conf, "\nlistener 8883\n") {
		t.Fatalf("%s: no 'listener 8883' line", shippedConfig)
	}
	conf = strings.Replace(conf, "\nlistener 8883\n", fmt.Sprintf("\nlistener %d 127.0.0.1\n", port), 1)
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	conf += fmt.Sprintf("\n# test only\nuser %s\npid_file %s/mosquitto.pid\nlog_dest stderr\nlog_type all\n", me.Username, dir)
	path := filepath.Join(dir, "mosquitto.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startMosquitto runs mosquitto for env's CA in dir on port.
func startMosquitto(t testing.TB, dir string, port int) *mosquitto {
	t.Helper()
	m := &mosquitto{dir: dir, conf: writeMosquittoConfig(t, dir, port), pidFile: filepath.Join(dir, "mosquitto.pid")}
	m.grew = sync.NewCond(&m.mu)
	m.start(t)
	t.Cleanup(func() { m.stop(t) })
	return m
}

func (m *mosquitto) start(t testing.TB) {
	t.Helper()
	m.mu.Lock()
	m.log = nil // a new process, a new log
	m.mu.Unlock()
	m.cmd = exec.Command(mosquittoBinary(t), "-c", m.conf)
	stderr, err := m.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("start mosquitto: %v", err)
	}
	m.logged = make(chan struct{})
	go func() {
		defer close(m.logged)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			m.mu.Lock()
			m.log = append(m.log, sc.Text())
			m.grew.Broadcast()
			m.mu.Unlock()
		}
		m.mu.Lock()
		m.log = append(m.log, "EOF")
		m.grew.Broadcast()
		m.mu.Unlock()
	}()
	m.waitLog(t, "running", 1)
}

func (m *mosquitto) stop(t testing.TB) {
	t.Helper()
	if m.cmd == nil {
		return
	}
	_ = m.cmd.Process.Signal(os.Interrupt)
	<-m.logged
	_ = m.cmd.Wait()
	m.cmd = nil
}

func (m *mosquitto) count(substr string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, l := range m.log {
		if strings.Contains(l, substr) {
			n++
		}
	}
	return n
}

// waitLog waits until n log lines contain substr.
func (m *mosquitto) waitLog(t testing.TB, substr string, n int) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		m.mu.Lock()
		for m.countLocked(substr) < n && !slices.Contains(m.log, "EOF") {
			m.grew.Wait()
		}
		m.mu.Unlock()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(waitLong):
	}
	if m.count(substr) < n {
		m.mu.Lock()
		defer m.mu.Unlock()
		t.Fatalf("mosquitto: waited for %q (%d times); log:\n%s", substr, n, strings.Join(m.log, "\n"))
	}
}

func (m *mosquitto) countLocked(substr string) int {
	n := 0
	for _, l := range m.log {
		if strings.Contains(l, substr) {
			n++
		}
	}
	return n
}

// updateACL changes the ACL file and has mosquitto reload it. mosquitto
// logs the reload before it reads the file and forgets a SIGHUP that comes
// while it reloads; since it runs one thread, a request it answers after
// the log line comes after the reload completed.
func (m *mosquitto) updateACL(t testing.TB, change func(*broker.MosquittoACL)) {
	t.Helper()
	if err := broker.UpdateMosquittoACL(filepath.Join(m.dir, "acl"), change); err != nil {
		t.Fatalf("update ACL: %v", err)
	}
	n := m.count("Reloading config")
	if err := broker.ReloadMosquitto(m.pidFile); err != nil {
		t.Fatalf("reload: %v", err)
	}
	m.waitLog(t, "Reloading config", n+1)
	m.barrier(t)
}

// copyFile copies a credential file into the broker's directory.
func copyFile(t testing.TB, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// serverBus dials the server's Bus to addr with its own credentials.
func serverBus(t testing.TB, ca *testCA, addr string) mqtt.Bus {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "server")
	if err := broker.CreateServerCredentials(ca, "", dir, time.Hour); err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, broker.CredentialsCertFile), filepath.Join(dir, broker.CredentialsKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	bus, err := broker.DialExternal(ctx, broker.ExternalConfig{URL: "mqtts://" + addr, TLS: clientTLS(ca.CAPool(), &pair), Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("DialExternal: %v", err)
	}
	t.Cleanup(func() { _ = bus.Close() })
	return bus
}
