package e2e

import (
	"crypto/tls"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
)

// TestTwoAgentsAreIsolated joins two agents (own data dirs, node names and
// containerd namespaces) to one server: each runs only the pods bound to
// it, and one node's certificate can neither read nor change the other
// node's pods, through the API or through MQTT.
func TestTwoAgentsAreIsolated(t *testing.T) {
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServer(t)
	token := cluster.JoinToken(t, s)
	nodes := []struct{ node, ns, pod string }{
		{"pi-a", "bramble-e2e-a", "pod-a"},
		{"pi-b", "bramble-e2e-b", "pod-b"},
	}
	agents := make([]*cluster.Agent, len(nodes))
	for i, n := range nodes {
		agents[i] = cluster.StartAgent(t, s, d, n.ns, "--token", token, "--node-name", n.node)
	}
	for i, n := range nodes {
		agents[i].WaitReady(t, s, n.node)
		agents[i].ImportBusybox(t, d, n.ns, "docker.io/library/busybox:e2e-agent")
		if _, stderr, err := s.Apply(namedPod(n.pod, n.node)); err != nil {
			t.Fatalf("kubectl apply %s: %v: %s", n.pod, err, stderr)
		}
	}
	for _, n := range nodes {
		waitPhase(t, s, n.pod, "Running")
	}
	for i, n := range nodes {
		other := nodes[1-i].pod
		if ctrs := cluster.Ctr(t, d, n.ns, "containers", "ls", "-q"); !strings.Contains(ctrs, n.pod) || strings.Contains(ctrs, other) {
			t.Errorf("containerd namespace %s: got containers %q, want %s's and not %s's", n.ns, ctrs, n.pod, other)
		}
	}
	agents[0].Stop(t) // its MQTT client ID is free for the test's own connection
	creds, err := join.LoadCredentials(filepath.Join(agents[0].DataDir, "agent"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("api", func(t *testing.T) { testNodeAPIIsolation(t, s, creds) })
	t.Run("mqtt", func(t *testing.T) { testNodeMQTTIsolation(t, s, creds) })
	t.Run("view", func(t *testing.T) { testNodeViewIsolation(t, s, creds) })
	if t.Failed() {
		t.Logf("server output:\n%s", s.Logs())
	}
}

func connectAs(t *testing.T, s *cluster.Server, id string, tc *tls.Config) paho.Client {
	t.Helper()
	mq := paho.NewClient(paho.NewClientOptions().AddBroker("tls://127.0.0.1:" + strconv.Itoa(s.MQTTPort)).SetClientID(id).
		SetTLSConfig(tc).SetProtocolVersion(4).SetAutoReconnect(false).SetConnectTimeout(5 * time.Second))
	if tok := mq.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("%s connects to the broker: %v", id, tok.Error())
	}
	return mq
}

func namedPod(name, node string) string {
	return strings.NewReplacer("name: hello", "name: "+name, "name: main", "name: "+name).Replace(agentPod(node))
}

func waitPhase(t *testing.T, s *cluster.Server, pod, phase string) {
	t.Helper()
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pod", pod, "-o", "jsonpath={.status.phase}")
		return err == nil && out == phase
	}, "pod "+pod+" to be "+phase)
}

// testNodeAPIIsolation uses pi-a's certificate against pi-b's pod.
func testNodeAPIIsolation(t *testing.T, s *cluster.Server, creds *join.Credentials) {
	tc, err := creds.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	c := cluster.NewClientTLS(t, s.URL(), tc)
	if r := c.Do("GET", "/api/v1/namespaces/default/pods/pod-a", "", nil); r.Code != 200 {
		t.Fatalf("pi-a reads its own pod: got %d, want 200: %s", r.Code, r.Body)
	}
	for _, tc := range []struct{ method, path, ctype, body string }{
		{"GET", "/api/v1/namespaces/default/pods/pod-b", "", ""},
		{"GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dpi-b", "", ""},
		{"GET", "/api/v1/namespaces/default/pods/pod-b/log", "", ""},
		{"PATCH", "/api/v1/namespaces/default/pods/pod-b/status", "application/merge-patch+json", `{"status":{"phase":"Failed"}}`},
		{"PATCH", "/api/v1/namespaces/default/pods/pod-b", "application/merge-patch+json", `{"metadata":{"labels":{"owned":"yes"}}}`},
		{"DELETE", "/api/v1/namespaces/default/pods/pod-b", "", ""},
		{"POST", "/api/v1/namespaces/default/pods", "application/json",
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"sneaky"},"spec":{"nodeName":"pi-b","containers":[{"name":"c","image":"busybox"}]}}`},
	} {
		var body []byte
		if tc.body != "" {
			body = []byte(tc.body)
		}
		if r := c.Do(tc.method, tc.path, tc.ctype, body); r.Code != 403 {
			t.Errorf("pi-a: %s %s: got %d, want 403: %s", tc.method, tc.path, r.Code, r.Body)
		}
	}
	waitPhase(t, s, "pod-b", "Running")
}

// testNodeViewIsolation: pi-a's certificate relists pi-a's view in one
// call, and may not read pi-b's.
func testNodeViewIsolation(t *testing.T, s *cluster.Server, creds *join.Credentials) {
	tc, err := creds.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	c := cluster.NewClientTLS(t, s.URL(), tc)
	r := c.Do("GET", mqtt.ViewPath("pi-a"), "", nil)
	if r.Code != 200 {
		t.Fatalf("pi-a relists its view: got %d, want 200: %s", r.Code, r.Body)
	}
	v, err := mqtt.DecodeView(r.Body)
	var names []string
	if err == nil {
		for _, c := range v.Changes {
			names = append(names, c.Resource+"/"+c.Namespace+"/"+c.Name)
		}
	}
	// pod-a and what it references: the kube-root-ca.crt ConfigMap of its
	// ServiceAccount token volume; nothing of pod-b.
	want := []string{"configmaps/default/kube-root-ca.crt", "pods/default/pod-a"}
	if err != nil || !v.Full || !slices.Equal(names, want) {
		t.Errorf("pi-a's view: got %v (full %v), %v; want the whole view with %v only", names, v != nil && v.Full, err, want)
	}
	if r := c.Do("GET", mqtt.ViewPath("pi-b"), "", nil); r.Code != 403 {
		t.Errorf("pi-a reads pi-b's view: got %d, want 403: %s", r.Code, r.Body)
	}
}

// testNodeMQTTIsolation connects to the broker as pi-a: it may not
// subscribe to pi-b's topics, its publishes on pi-b's topics are dropped,
// and a report on its own topic about pi-b's pod is ignored.
func testNodeMQTTIsolation(t *testing.T, s *cluster.Server, creds *join.Credentials) {
	tc, err := creds.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	mq := connectAs(t, s, "pi-a", tc)
	defer func() { mq.Disconnect(0) }()
	for topic, want := range map[string]byte{mqtt.DesiredTopic("pi-a"): 1, mqtt.DesiredTopic("pi-b"): 0x80, mqtt.RPCRequestTopic("pi-b"): 0x80} {
		tok := mq.Subscribe(topic, 1, func(paho.Client, paho.Message) {})
		if !tok.WaitTimeout(10 * time.Second) {
			t.Fatalf("subscribe %s: no SUBACK", topic)
		}
		if got := tok.(*paho.SubscribeToken).Result()[topic]; got != want {
			t.Errorf("pi-a subscribes to %s: got SUBACK code %#x, want %#x", topic, got, want)
		}
	}
	uid := func(pod string) string { return s.MustKubectl("get", "pod", pod, "-o", "jsonpath={.metadata.uid}") }
	forged := mqtt.PodStatusEntry{Namespace: "default", Name: "pod-b", UID: uid("pod-b"),
		Status: corev1.PodStatus{Phase: corev1.PodFailed, Message: "forged"}}
	marker := mqtt.PodStatusEntry{Namespace: "default", Name: "pod-a", UID: uid("pod-a"),
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Message: "marker"}}
	publish := func(topic string, r mqtt.PodStatusReport) error {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		tok := mq.Publish(topic, 1, false, b)
		if !tok.WaitTimeout(10 * time.Second) {
			t.Fatalf("publish on %s: neither PUBACK nor disconnect in 10s", topic)
		}
		return tok.Error()
	}
	// A publish on another node's topic costs the connection.
	if err := publish(mqtt.PodStatusTopic("pi-b"), mqtt.PodStatusReport{Node: "pi-b", Pods: []mqtt.PodStatusEntry{forged}}); err == nil {
		t.Errorf("pi-a published on pi-b's pod status topic and kept its connection")
	}
	mq.Disconnect(0)
	mq = connectAs(t, s, "pi-a", tc)
	if err := publish(mqtt.PodStatusTopic("pi-a"), mqtt.PodStatusReport{Node: "pi-a", Pods: []mqtt.PodStatusEntry{forged, marker}}); err != nil {
		t.Fatalf("pi-a publishes on its own pod status topic: %v", err)
	}
	// The server writes pi-a's own pod and refuses the entry about pod-b.
	cluster.WaitFor(t, 20*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pod", "pod-a", "-o", "jsonpath={.status.message}")
		return err == nil && out == "marker"
	}, "pi-a's report about its own pod to be written")
	cluster.WaitFor(t, 20*time.Second, func() bool {
		return strings.Contains(s.Logs(), `status of a pod not bound to it; ignored" component=nodestatus node=pi-a pod=default/pod-b`)
	}, "the server to refuse pi-a's report about pod-b")
	out := s.MustKubectl("get", "pod", "pod-b", "-o", "jsonpath={.status.phase} {.status.message}")
	if out != "Running " {
		t.Errorf("pod-b after pi-a's forged reports: got %q, want %q (unchanged)", out, "Running ")
	}
}
