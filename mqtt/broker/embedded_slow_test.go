package broker_test

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
)

// TestEmbeddedSlowSubscriberDoesNotDelayOthers: a client that subscribes at
// QoS 1 and then never reads its socket must neither hold up the server's
// publishing nor another subscriber's delivery; the broker cuts it off.
func TestEmbeddedSlowSubscriberDoesNotDelayOthers(t *testing.T) {
	env := newEmbedded(t, func(c *broker.Config) { c.QueueBytes = 1 << 20 })
	topic := mqtt.WatchTopic("configmaps", "default", "big")

	stuck := rawSubscribe(t, env, "stuck", mqtt.WatchPrefix+"#")
	defer stuck.Close()

	fast := newInbox()
	fc := mustDial(t, pahoOptions(env.addr, "fast", clientTLS(env.ca.CAPool(), ptr(env.ca.clientCert(t, "fast", broker.ViewerGroup))), fast))
	subscribe(t, fc, mqtt.WatchPrefix+"#")

	// Rounds the fast subscriber keeps up with (each well under its queue
	// bound), 12.5 MiB in all: far past every buffer of the stuck client.
	const rounds, perRound, size = 20, 20, 32 << 10
	payload := bytes.Repeat([]byte("x"), size)
	start := time.Now()
	for r := range rounds {
		for i := range perRound {
			copy(payload, fmt.Sprintf("%04d-%04d", r, i))
			if err := env.bus.Publish(t.Context(), topic, 1, false, payload); err != nil {
				t.Fatalf("publish %d/%d: %v", r, i, err)
			}
		}
		want := (r + 1) * perRound
		waitUntil(t, fmt.Sprintf("%d messages at the fast subscriber", want), func() bool { return len(fast.all()) >= want })
	}
	elapsed := time.Since(start)
	t.Logf("%d x %d KiB delivered to the fast subscriber in %s while another subscriber did not read", rounds*perRound, size>>10, elapsed)
	if elapsed > 30*time.Second {
		t.Fatalf("fast subscriber got %d messages in %s, want well under 30s", rounds*perRound, elapsed)
	}
	waitUntil(t, "the stuck client cut off", func() bool { return !env.broker.SessionOpen("stuck") })
}

// rawSubscribe opens a bare MQTT 3.1.1 connection as viewer name,
// subscribes to filter at QoS 1, reads the SUBACK and returns the
// connection, which the caller then never reads.
func rawSubscribe(t *testing.T, env *embedded, name, filter string) net.Conn {
	t.Helper()
	raw, err := net.Dial("tcp", env.addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = raw.(*net.TCPConn).SetReadBuffer(4 << 10)
	cert := env.ca.clientCert(t, name, broker.ViewerGroup)
	c := tls.Client(raw, clientTLS(env.ca.CAPool(), &cert))
	_ = c.SetDeadline(time.Now().Add(waitLong))
	connect := append([]byte{0, 4, 'M', 'Q', 'T', 'T', 4, 0x02, 0, 60}, mqttString(name)...)
	sub := append(append([]byte{0, 1}, mqttString(filter)...), 1)
	for _, pk := range [][]byte{packet(0x10, connect), packet(0x82, sub)} {
		if _, err := c.Write(pk); err != nil {
			t.Fatalf("raw client write: %v", err)
		}
	}
	ack := make([]byte, 4+5)
	if _, err := io.ReadFull(c, ack); err != nil {
		t.Fatalf("raw client: read CONNACK and SUBACK: %v", err)
	}
	if ack[0] != 0x20 || ack[3] != 0 || ack[4] != 0x90 || ack[8] != 1 {
		t.Fatalf("raw client: got CONNACK+SUBACK % x, want accepted and QoS 1 granted", ack)
	}
	return c
}

func mqttString(s string) []byte {
	return append(binary.BigEndian.AppendUint16(nil, uint16(len(s))), s...)
}

// packet frames body with its type byte and remaining length.
func packet(typ byte, body []byte) []byte {
	out := []byte{typ}
	for n := len(body); ; {
		b := byte(n % 128)
		n /= 128
		if n > 0 {
			b |= 0x80
		}
		out = append(out, b)
		if n == 0 {
			break
		}
	}
	return append(out, body...)
}

// TestEmbeddedCutsOffClientThatNeverAcks: a client that holds MaxInflight
// unacknowledged QoS 1 messages is disconnected, even when its socket still
// takes bytes.
func TestEmbeddedCutsOffClientThatNeverAcks(t *testing.T) {
	env := newEmbedded(t, func(c *broker.Config) { c.MaxInflight = 16 })
	stuck := rawSubscribe(t, env, "no-acks", mqtt.WatchPrefix+"#")
	defer stuck.Close()
	for i := range 17 {
		busPublish(t, env.bus, mqtt.WatchTopic("pods", "default", "p"), 1, fmt.Sprint("m", i))
	}
	waitUntil(t, "the client that never acknowledges cut off", func() bool { return !env.broker.SessionOpen("no-acks") })
}

// TestEmbeddedTimesOutSilentConnections: a connection that does not
// complete the handshake, or sends no CONNECT after it, is closed.
func TestEmbeddedTimesOutSilentConnections(t *testing.T) {
	env := newEmbedded(t, func(c *broker.Config) { c.HandshakeTimeout = 300 * time.Millisecond })
	raw, err := net.Dial("tcp", env.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	cert := env.ca.clientCert(t, "quiet", broker.ViewerGroup)
	tc, err := tls.Dial("tcp", env.addr, clientTLS(env.ca.CAPool(), &cert))
	if err != nil {
		t.Fatalf("TLS handshake: %v", err)
	}
	defer tc.Close()
	for name, c := range map[string]net.Conn{"no handshake": raw, "no CONNECT": tc} {
		_ = c.SetReadDeadline(time.Now().Add(waitLong))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Errorf("%s: read got data, want the connection closed", name)
		} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Errorf("%s: still open after %s, want closed after the handshake timeout", name, waitLong)
		}
	}
}
