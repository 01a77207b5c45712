//go:build chaos

package chaos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
)

// TestMQTTForgeryAndFlood: a joined node (mallory) publishes under a good
// node's topics (its pod status, presence, desired and status topics) and
// reports another node's pod on its own topic: none of it may reach the
// API or the good node's state. Then mallory floods its own subtree while
// pods are created on the good node; the time from a pod's create to the
// good node's status report for it (a round trip through the broker) must
// not stall. The figure compares it with a quiet broker.
func TestMQTTForgeryAndFlood(t *testing.T) {
	t.Parallel()
	const good, ns = "pi-good", "bramble-chaos-mqtt"
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServer(t)
	a := cluster.StartAgent(t, s, d, ns, "--token", cluster.JoinToken(t, s), "--node-name", good)
	a.WaitReady(t, s, good)
	c := cluster.NewClient(t, s.Kubeconfig)
	mallory := mustJoin(t, s, cluster.JoinToken(t, s), "pi-mallory", "")
	baseline := roundTrips(t, c, good, "quiet", 3)

	seen := record(c, "/api/v1/pods?watch=1")
	forged := forge(t, mallory, c, good)
	time.Sleep(3 * time.Second)
	if pods := seen(); strings.Contains(pods, "Forged") {
		t.Fatalf("a pod status forged by another node reached the API:\n%s", pods)
	}
	if out := s.MustKubectl("get", "node", good, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`); out != "True" {
		t.Fatalf("%s after forged presence: Ready %q, want True", good, out)
	}
	converge(t, c, a, good, 30*time.Second)

	var sent atomic.Int64
	stop := flood(t, mallory, &sent)
	begin := time.Now()
	during := roundTrips(t, c, good, "flood", pick(5, 30))
	stop()
	rate := float64(sent.Load()) / time.Since(begin).Seconds()
	converge(t, c, a, good, 30*time.Second)
	figure("mqtt-forge-flood: forged=%d refused/ignored, flood=%d msgs (%.0f/s) from one node; good node create-to-status p50=%s max=%s (quiet max %s)",
		forged, sent.Load(), rate, during[len(during)/2], during[len(during)-1], baseline[len(baseline)-1])
}

// record watches path and returns what the watch has delivered so far.
func record(c *cluster.Client, path string) func() string {
	events := c.Watch(path)
	var mu sync.Mutex
	var seen bytes.Buffer
	go func() {
		for ev := range events {
			mu.Lock()
			seen.Write(ev.Object)
			mu.Unlock()
		}
	}()
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return seen.String()
	}
}

// roundTrips creates n pods on node one after another and returns, sorted,
// how long each took from its create to the node's status report for it.
func roundTrips(t *testing.T, c *cluster.Client, node, tag string, n int) []time.Duration {
	t.Helper()
	b := &burst{t: t, c: c, node: node}
	var out []time.Duration
	for i := range n {
		name := fmt.Sprintf("%s-rt-%d", tag, i)
		begin := time.Now()
		b.do(http.MethodPost, "/api/v1/namespaces/default/pods", http.StatusCreated, fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod",
			"metadata":{"name":%q},"spec":{"nodeName":%q,"containers":[{"name":"c","image":"docker.io/library/busybox:chaos-absent",
			"imagePullPolicy":"Never"}]}}`, name, node))
		cluster.WaitFor(t, 20*time.Second, func() bool {
			var p corev1.Pod
			r := c.Do(http.MethodGet, "/api/v1/namespaces/default/pods/"+name, "", nil)
			return json.Unmarshal(r.Body, &p) == nil && len(p.Status.ContainerStatuses) > 0
		}, "the good node to report the status of pod "+name)
		out = append(out, time.Since(begin).Round(time.Millisecond))
	}
	slices.Sort(out)
	return out
}

// tryConnect opens an MQTT session with a node's credentials on the
// broker's loopback address.
func tryConnect(creds *join.Credentials) (paho.Client, error) {
	tc, err := creds.TLSConfig()
	if err != nil {
		return nil, err
	}
	broker := "" // the address of the broker on loopback (the list also names the machine's others)
	for _, addr := range creds.MQTTAddresses {
		if strings.Contains(addr, "//127.0.0.1:") {
			broker = strings.Replace(addr, "mqtts://", "tls://", 1)
		}
	}
	cl := paho.NewClient(paho.NewClientOptions().AddBroker(broker).SetClientID(creds.NodeName).SetTLSConfig(tc).
		SetProtocolVersion(4).SetAutoReconnect(false).SetConnectTimeout(5 * time.Second))
	if tok := cl.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		return nil, fmt.Errorf("connect to %s: %v", broker, tok.Error())
	}
	return cl, nil
}

// forge publishes, as mallory, under good's topics and about good's pod
// on mallory's own, each on a fresh session (the broker may cut one);
// it returns how many it sent.
func forge(t *testing.T, mallory *join.Credentials, c *cluster.Client, good string) int {
	t.Helper()
	var p corev1.Pod
	r := c.Do(http.MethodGet, "/api/v1/namespaces/default/pods/quiet-rt-0", "", nil)
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatal(err)
	}
	entry := mqtt.PodStatusEntry{Namespace: "default", Name: p.Name, UID: string(p.UID),
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Reason: "Forged", Message: "Forged by another node"}}
	report := func(node string) []byte {
		b, _ := json.Marshal(mqtt.PodStatusReport{Node: node, Pods: []mqtt.PodStatusEntry{entry}})
		return b
	}
	msgs := []struct {
		topic    string
		retained bool
		payload  []byte
	}{
		{mqtt.PodStatusTopic(good), false, report(good)},
		{mqtt.PodStatusTopic(mallory.NodeName), false, report(mallory.NodeName)},
		{mqtt.PresenceTopic(good), true, []byte("offline")},
		{mqtt.DesiredTopic(good), false, []byte(`{"type":"relist","rev":1}`)},
		{mqtt.StatusTopic(good), false, []byte(`{"node":"` + good + `","ready":false}`)},
	}
	for _, m := range msgs {
		cl, err := tryConnect(mallory)
		if err != nil {
			t.Fatal(err)
		}
		cl.Publish(m.topic, 1, m.retained, m.payload).WaitTimeout(5 * time.Second)
		cl.Disconnect(0)
	}
	return len(msgs)
}

// flood publishes junk and oversized messages under mallory's own subtree
// as fast as the connection takes them, until the returned stop is called.
func flood(t *testing.T, mallory *join.Credentials, sent *atomic.Int64) (stop func()) {
	t.Helper()
	cl, err := tryConnect(mallory)
	if err != nil {
		t.Fatal(err)
	}
	done, finished := make(chan struct{}), make(chan struct{})
	payloads := [][]byte{[]byte("{not json"), bytes.Repeat([]byte("x"), 64<<10), []byte(`{"node":"pi-mallory","pods":[]}`)}
	topics := []string{mqtt.StatusTopic(mallory.NodeName), mqtt.PodStatusTopic(mallory.NodeName), mqtt.NodeSubtree(mallory.NodeName) + "events"}
	go func() {
		defer close(finished)
		for i := 0; ; i++ {
			select {
			case <-done:
				cl.Disconnect(0)
				return
			default:
			}
			if !cl.IsConnected() { // the broker may cut a flooder; it comes back
				cl.Disconnect(0)
				if next, err := tryConnect(mallory); err == nil {
					cl = next
				}
				continue
			}
			cl.Publish(topics[i%len(topics)], byte(i%2), false, payloads[i%len(payloads)]).WaitTimeout(time.Second)
			sent.Add(1)
		}
	}()
	return func() { close(done); <-finished }
}
