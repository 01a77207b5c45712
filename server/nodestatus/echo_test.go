package nodestatus_test

import (
	"context"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/nodestatus"
	"github.com/bramble-edge/bramble/server/publish"
)

// desiredLog collects the Events a node receives on its desired topic.
type desiredLog struct {
	mu  sync.Mutex
	evs []*mqtt.Event
}

func (d *desiredLog) all() []*mqtt.Event {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*mqtt.Event(nil), d.evs...)
}

func (a *agent) subscribeDesired(t testing.TB) *desiredLog {
	t.Helper()
	d := &desiredLog{}
	tok := a.c.Subscribe(mqtt.DesiredTopic(a.name), 1, func(_ paho.Client, m paho.Message) {
		ev, err := mqtt.DecodeEvent(m.Payload())
		if err != nil {
			t.Errorf("desired event does not decode: %v", err)
			return
		}
		d.mu.Lock()
		d.evs = append(d.evs, ev)
		d.mu.Unlock()
	})
	if !tok.WaitTimeout(waitLong) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	return d
}

// podRev is the revision of the pod's last write.
func (e *env) podRev(name string) int64 {
	e.t.Helper()
	res, _ := api.Lookup("", "v1", "pods")
	kv, err := e.store.Get(context.Background(), res.Key("default", name))
	if err != nil {
		e.t.Fatal(err)
	}
	return kv.ModRevision
}

// TestOwnPodStatusIsNotEchoed: the real path, agent report -> Monitor ->
// API status write -> publisher, sends nothing back on the node's desired
// topic, and the node's next Event chains from the last one it got.
func TestOwnPodStatusIsNotEchoed(t *testing.T) {
	e := newEnv(t, nodestatus.Config{GracePeriod: time.Hour})
	pub := publish.New(publish.Config{Store: e.store, Bus: e.broker.Bus(), Logger: testLogger()})
	if err := pub.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pub.Stop)
	a := e.connect(t, "pi-1")
	got := a.subscribeDesired(t)
	mine := e.boundPod("mine", "pi-1")
	waitUntil(t, "the pod on the desired topic", func() bool {
		evs := got.all()
		return len(evs) > 0 && evs[len(evs)-1].Rev == e.podRev("mine")
	})
	sent := got.all()

	a.report(t, running(mine))
	waitUntil(t, "pod mine Running", func() bool { return e.pod("mine").Status.Phase == corev1.PodRunning })
	notReady := running(mine)
	notReady.Status.Conditions[0].Status = corev1.ConditionFalse
	notReady.Status.ContainerStatuses[0].Ready = false
	a.report(t, notReady)
	waitUntil(t, "pod mine not ready", func() bool { return e.pod("mine").Status.Conditions[0].Status == corev1.ConditionFalse })

	labelled := e.pod("mine")
	labelled.Labels = map[string]string{"v": "2"}
	if _, err := e.api.Registry().Client().Update(context.Background(), labelled); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the label change on the desired topic", func() bool {
		evs := got.all()
		return evs[len(evs)-1].Rev == e.podRev("mine")
	})
	evs := got.all()
	if len(evs) != len(sent)+1 {
		t.Fatalf("desired events after two status reports and a label change: got %d new, want 1", len(evs)-len(sent))
	}
	last, ev := sent[len(sent)-1], evs[len(evs)-1]
	if ev.Prev != last.Rev || len(ev.Changes) != 1 || ev.Changes[0].Name != "mine" {
		t.Errorf("label change event: got prev %d, %d changes; want prev %d (the last Event sent), pod mine", ev.Prev, len(ev.Changes), last.Rev)
	}
}
