package mqttdelivery

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	agentlogs "github.com/bramble-edge/bramble/agent/logs"
	"github.com/bramble-edge/bramble/agent/runtime/logdriver"
	"github.com/bramble-edge/bramble/mqtt/client"
	"github.com/bramble-edge/bramble/server/logs"
)

// TestLogsOverTheNodeClient: a joined node's real client, with its log
// handler on Config.OnRPC, answers the server's Streamer through the
// embedded broker (with the join's certificate check).
func TestLogsOverTheNodeClient(t *testing.T) {
	c := newCluster(t)
	e := newEmbedded(t, c)
	c.broker = e.url()
	creds := c.join(newAdminClient(t, c), "pi-0")
	dataDir := t.TempDir()
	h := agentlogs.NewHandler(agentlogs.Config{PodLogDir: dataDir, Node: "pi-0", Logger: quiet(), Poll: 20 * time.Millisecond})
	t.Cleanup(h.Close)
	cl, err := client.Connect(context.Background(), client.Config{Credentials: creds, Applier: client.NewMemory(), Logger: quiet(),
		OnRPC: func(c *client.Client, topic string, payload []byte) { h.Handle(c, topic, payload) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	w, err := logdriver.OpenWriter(filepath.Join(dataDir, "default_p_uid-1", "c", "0.log"), 1<<20, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.WriteLine("stdout", false, []byte("hello from pi-0"))
	s := logs.New(e.serverBus(), quiet())
	s.FirstReply = time.Second
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p", UID: "uid-1"}}
	var out strings.Builder
	deadline := time.Now().Add(15 * time.Second)
	for { // the client subscribes in the background after connecting
		out.Reset()
		err = s.StreamLogs(t.Context(), "pi-0", pod, &corev1.PodLogOptions{Container: "c"}, &out)
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || out.String() != "hello from pi-0\n" {
		t.Fatalf("StreamLogs: got %q (%v), want %q", out.String(), err, "hello from pi-0\n")
	}
}
