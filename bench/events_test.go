package bench

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bramble-edge/bramble/agent/events"
	"github.com/bramble-edge/bramble/clock/clocktest"
	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server/pki"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// BenchmarkCrashLoopEvents measures the agent's events for 100 pods
// crash-looping on one node for two hours of simulated time (fake clock):
// each start records Pulled, Created and Started and each back-off step
// BackOff, as the pod worker does (agent/pods TestCrashLoopTellsOneBackOffPerStep),
// into the real recorder, flushed every second through a real paho client
// over TLS to the embedded broker, where a subscriber counts what arrives.
// It reports the series states sent per pod per back-off step over the
// whole run and over the second hour (steady state, 5 min steps), the MQTT
// payload bytes, and the process's CPU (recorder, paho, broker and
// subscriber together) per simulated second, as % of one core.
//
//	go test -run '^$' -bench CrashLoopEvents -benchtime 1x ./bench/
func BenchmarkCrashLoopEvents(b *testing.B) {
	const pods, hours = 100, 2
	for range b.N {
		conn, got := eventsBroker(b, "pi-0")
		clk := clocktest.NewFake(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
		rec := events.New("pi-0", events.Config{Clock: clk})
		loop := newCrashLoops(pods, clk.Now())
		cpu0 := cpuTime()
		var firstHour events.Stats
		var firstSteps int
		for sec := 0; sec < hours*3600; sec++ {
			loop.tick(rec, clk.Now())
			if _, err := rec.Flush(context.Background(), conn); err != nil {
				b.Fatal(err)
			}
			if sec == 3599 {
				firstHour, firstSteps = rec.Stats(), loop.steps
			}
			clk.Advance(time.Second)
		}
		st := rec.Stats()
		waitArrived(b, got, st.Reports)
		cpu := cpuTime() - cpu0
		b.ReportMetric(float64(st.Sent)/float64(loop.steps), "sent/pod-step")
		b.ReportMetric(float64(st.Sent-firstHour.Sent)/float64(loop.steps-firstSteps), "sent/pod-step-steady")
		b.ReportMetric(float64(loop.steps)/pods, "steps/pod")
		b.ReportMetric(float64(st.Recorded)/pods, "recorded/pod")
		b.ReportMetric(float64(got.bytes.Load())/pods/hours, "B/pod-hour")
		b.ReportMetric(float64(st.Reports), "messages")
		b.ReportMetric(100*cpu.Seconds()/float64(hours*3600), "%cpu")
	}
}

// crashLoops is the worker's event sequence for pods whose container exits
// at once: start (Pulled, Created, Started), the first crash restarts at
// once, each later one waits 10 s doubling to 5 min (BackOff).
type crashLoops struct {
	pods    []*corev1.Pod
	next    []time.Time
	backoff []time.Duration
	steps   int // BackOff events recorded: back-off steps
}

func newCrashLoops(n int, now time.Time) *crashLoops {
	c := &crashLoops{next: make([]time.Time, n), backoff: make([]time.Duration, n)}
	for i := range n {
		name := fmt.Sprintf("crasher-%d", i)
		c.pods = append(c.pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name,
			UID: types.UID("uid-" + name)}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}})
		c.next[i] = now.Add(time.Duration(i%10) * time.Second)
	}
	return c
}

func (c *crashLoops) tick(rec *events.Recorder, now time.Time) {
	for i, pod := range c.pods {
		if now.Before(c.next[i]) {
			continue
		}
		ref := events.PodRef(pod, "app")
		rec.Event(ref, events.Normal, "Pulled", `Container image "busybox:1.36" already present on machine`)
		rec.Event(ref, events.Normal, "Created", "Created container: app")
		rec.Event(ref, events.Normal, "Started", "Started container app")
		if c.backoff[i] == 0 {
			c.backoff[i] = 10 * time.Second
			c.next[i] = now.Add(time.Second) // exits, restarted at once
			continue
		}
		rec.Event(ref, events.Warning, "BackOff", fmt.Sprintf("Back-off restarting failed container app in pod %s_default(%s)", pod.Name, pod.UID))
		c.steps++
		c.next[i] = now.Add(time.Second + c.backoff[i])
		c.backoff[i] = min(2*c.backoff[i], 5*time.Minute)
	}
}

// arrivals counts what reaches the server's side of the broker.
type arrivals struct {
	messages, bytes, series atomic.Uint64
}

// eventsBroker starts the embedded broker on TLS with a subscriber to the
// events topics, and connects node to it with its certificate.
func eventsBroker(b *testing.B, node string) (*pahoPublisher, *arrivals) {
	b.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ca, err := pki.Load(filepath.Join(b.TempDir(), "tls"), pki.Config{SANs: []string{"127.0.0.1"}, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	br, err := broker.New(broker.Config{Addr: "127.0.0.1:0", TLS: ca.ServingTLSConfig(), Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	if err := br.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = br.Stop() })
	got := &arrivals{}
	bus := br.Bus()
	b.Cleanup(func() { _ = bus.Close() })
	if err := bus.Subscribe(mqtt.EventsTopic("+"), 1, func(_ string, payload []byte) {
		r, err := mqtt.DecodeEvents(payload)
		if err != nil {
			b.Errorf("decode: %v", err)
			return
		}
		got.messages.Add(1)
		got.bytes.Add(uint64(len(payload)))
		got.series.Add(uint64(len(r.Events)))
	}); err != nil {
		b.Fatal(err)
	}
	return connectNode(b, ca, br.Addr().String(), node), got
}

// pahoPublisher is a node's paho connection as an events.Publisher.
type pahoPublisher struct{ c paho.Client }

func (p *pahoPublisher) Publish(_ context.Context, topic string, qos byte, payload []byte) error {
	tok := p.c.Publish(topic, qos, false, payload)
	tok.WaitTimeout(30 * time.Second)
	return tok.Error()
}

func connectNode(b *testing.B, ca *pki.PKI, addr, node string) *pahoPublisher {
	b.Helper()
	certPEM, keyPEM, err := ca.NewClientCert(join.NodeUserPrefix+node, []string{join.NodeGroup}, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		b.Fatal(err)
	}
	tlsCfg := &tls.Config{RootCAs: ca.CAPool(), Certificates: []tls.Certificate{pair}, ServerName: "127.0.0.1"}
	o := paho.NewClientOptions().AddBroker("tls://" + addr).SetClientID(node).SetCleanSession(true).
		SetAutoReconnect(false).SetConnectTimeout(10 * time.Second)
	o.SetCustomOpenConnectionFn(func(u *url.URL, _ paho.ClientOptions) (net.Conn, error) { return tls.Dial("tcp", u.Host, tlsCfg) })
	c := paho.NewClient(o)
	if tok := c.Connect(); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
		b.Fatalf("connect %s: %v", node, tok.Error())
	}
	b.Cleanup(func() { c.Disconnect(0) })
	return &pahoPublisher{c}
}

// waitArrived waits until the subscriber has every published message.
func waitArrived(b *testing.B, got *arrivals, reports uint64) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for got.messages.Load() < reports {
		if time.Now().After(deadline) {
			b.Fatalf("arrived %d of %d messages", got.messages.Load(), reports)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// cpuTime is the process's user and system CPU so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
