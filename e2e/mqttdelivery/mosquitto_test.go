package mqttdelivery

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/internal/porttest"
)

// mosquitto is a real Debian mosquitto 2.0 the test starts, kills and
// starts again on the same port. Its configuration is the test's own and
// permissive (no ACLs): mutual TLS with the cluster CA, the certificate's
// CN as user name, no persistence, so a kill loses every session and
// every queued message.
type mosquitto struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
	done chan struct{}
}

// mosquittoBinary finds the broker or fails the test: it is a real part,
// never skipped (CI installs Debian's mosquitto).
func mosquittoBinary(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"/usr/sbin/mosquitto", "/usr/bin/mosquitto"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("mosquitto"); err == nil {
		return p
	}
	t.Fatal("mosquitto not found: this test needs Debian's mosquitto (apt-get install -y mosquitto mosquitto-clients)")
	return ""
}

func newMosquitto(t testing.TB, caFile, certFile, keyFile string) *mosquitto {
	t.Helper()
	m := &mosquitto{t: t, bin: mosquittoBinary(t), dir: t.TempDir(), port: porttest.Free(t)}
	conf := fmt.Sprintf(`per_listener_settings false
listener %d 127.0.0.1
cafile %s
certfile %s
keyfile %s
require_certificate true
use_identity_as_username true
allow_anonymous false
persistence false
max_queued_messages 1000
log_dest file %s
log_type error
log_type warning
log_type notice
`, m.port, caFile, certFile, keyFile, filepath.Join(m.dir, "mosquitto.log"))
	if os.Geteuid() == 0 {
		conf += "user root\n"
	}
	if err := os.WriteFile(m.confPath(), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	m.start()
	t.Cleanup(m.kill)
	return m
}

func (m *mosquitto) confPath() string { return filepath.Join(m.dir, "mosquitto.conf") }

func (m *mosquitto) url() string { return "mqtts://127.0.0.1:" + strconv.Itoa(m.port) }

// start runs the broker and waits until its port accepts connections.
func (m *mosquitto) start() {
	m.t.Helper()
	m.cmd = exec.Command(m.bin, "-c", m.confPath())
	out, err := os.OpenFile(filepath.Join(m.dir, "mosquitto.out"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		m.t.Fatal(err)
	}
	defer out.Close()
	m.cmd.Stdout, m.cmd.Stderr = out, out
	if err := m.cmd.Start(); err != nil {
		m.t.Fatalf("start mosquitto: %v", err)
	}
	m.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(m.cmd, m.done)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(m.port)), time.Second)
		if err == nil {
			conn.Close()
			return
		}
		select {
		case <-m.done:
			log, _ := os.ReadFile(filepath.Join(m.dir, "mosquitto.log"))
			out, _ := os.ReadFile(filepath.Join(m.dir, "mosquitto.out"))
			m.t.Fatalf("mosquitto exited at start: %s%s", out, log)
		case <-time.After(20 * time.Millisecond):
		}
	}
	m.t.Fatalf("mosquitto did not listen on port %d within 10s", m.port)
}

// kill stops the broker with SIGKILL: every connection drops at once and
// everything it held is lost.
func (m *mosquitto) kill() {
	if m.cmd == nil || m.cmd.Process == nil {
		return
	}
	m.cmd.Process.Signal(syscall.SIGKILL)
	<-m.done
	m.cmd = nil
}
