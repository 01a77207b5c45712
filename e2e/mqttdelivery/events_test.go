package mqttdelivery

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/events"
	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/mqtt/client"
	"github.com/bramble-edge/bramble/server/nodeevents"
	"github.com/bramble-edge/bramble/server/registry"
)

// TestEventsThroughMosquitto: a joined node's real client and recorder
// send events through Debian's mosquitto (--mqtt-broker); the server's
// ingest, on the external broker's Bus, writes them as one Event per
// series with a rising count.
func TestEventsThroughMosquitto(t *testing.T) {
	c := newCluster(t)
	ca, cert, key := c.brokerFiles()
	c.broker = newMosquitto(t, ca, cert, key).url()
	admin := newAdminClient(t, c)
	creds := c.join(admin, "pi-0")
	var pod corev1.Pod
	body := admin.must("POST", "/api/v1/namespaces/default/pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},`+
		`"spec":{"nodeName":"pi-0","containers":[{"name":"app","image":"busybox"}]}}`)
	if err := json.Unmarshal(body, &pod); err != nil {
		t.Fatal(err)
	}

	reg, err := registry.New(context.Background(), registry.Config{Store: c.store, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	bus := c.dialExternal()
	t.Cleanup(func() { _ = bus.Close() })
	in, err := nodeevents.New(nodeevents.Config{Bus: bus, Client: reg.Client(), Events: nodeevents.RegistryEvents(reg), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Stop)

	cl, err := client.Connect(context.Background(), client.Config{Credentials: creds, Applier: client.NewMemory(), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	rec := events.New("pi-0", events.Config{FlushDelay: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); rec.Run(ctx, cl) }()
	t.Cleanup(func() { cancel(); <-done })

	ref := events.PodRef(&pod, "app")
	for want := int32(1); want <= 3; want++ {
		rec.Event(ref, events.Warning, "BackOff", "Back-off restarting failed container app")
		waitEventCount(t, reg, want)
	}
	if s := in.Stats(); s.Created != 1 || s.Updated != 2 || s.Denied != 0 {
		t.Errorf("ingest stats: got %+v, want 1 created, 2 updated", s)
	}
}

// waitEventCount waits until the one stored Event has count want.
func waitEventCount(t *testing.T, reg *registry.Registry, want int32) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		list, err := reg.List(context.Background(), api.MustLookup("", "v1", "events"), "default", registry.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) > 1 {
			t.Fatalf("got %d Events, want one per series", len(list.Items))
		}
		if len(list.Items) == 1 && list.Items[0].(*corev1.Event).Count == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 20s for an Event with count %d; have %d Events", want, len(list.Items))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
