package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
)

// recordingBus stands in for the broker in these unit tests (the
// end-to-end test in e2e/mqttdelivery uses a real one): it keeps every
// publish per topic, can hold one topic's publishes back, and lets the
// test play a node's acks.
type recordingBus struct {
	mu      sync.Mutex
	msgs    map[string][][]byte
	handler func(topic string, payload []byte)
	blocked map[string]chan struct{} // topic -> closed when released
}

func newRecordingBus() *recordingBus {
	return &recordingBus{msgs: map[string][][]byte{}, blocked: map[string]chan struct{}{}}
}

func (b *recordingBus) Publish(ctx context.Context, topic string, _ byte, _ bool, payload []byte) error {
	b.mu.Lock()
	gate := b.blocked[topic]
	b.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.msgs[topic] = append(b.msgs[topic], payload)
	return nil
}

func (b *recordingBus) Subscribe(filter string, _ byte, h func(string, []byte)) error {
	if filter != mqtt.Prefix+"/nodes/+/ack" {
		return fmt.Errorf("unexpected subscription %q", filter)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.handler = h
	return nil
}

func (b *recordingBus) Close() error { return nil }

func (b *recordingBus) block(topic string) (release func()) {
	gate := make(chan struct{})
	b.mu.Lock()
	b.blocked[topic] = gate
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		delete(b.blocked, topic)
		b.mu.Unlock()
		close(gate)
	}
}

// ack plays node sending an ACK or HELLO.
func (b *recordingBus) ack(t testing.TB, node string, typ mqtt.AckType, rev int64) {
	t.Helper()
	payload, err := mqtt.Ack{Type: typ, Rev: rev}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	h := b.handler
	b.mu.Unlock()
	h(mqtt.AckTopic(node), payload)
}

// events returns the desired Events published for node so far.
func (b *recordingBus) events(t testing.TB, node string) []*mqtt.Event {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*mqtt.Event
	for _, p := range b.msgs[mqtt.DesiredTopic(node)] {
		ev, err := mqtt.DecodeEvent(p)
		if err != nil {
			t.Fatalf("published desired event does not decode: %v", err)
		}
		out = append(out, ev)
	}
	return out
}

func (b *recordingBus) topics() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]int{}
	for topic, msgs := range b.msgs {
		out[topic] = len(msgs)
	}
	return out
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func openStore(t testing.TB) *datastore.SQLite {
	t.Helper()
	s, err := datastore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "state.db"),
		datastore.SQLiteConfig{Logger: quiet(), CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func startPublisher(t testing.TB, store datastore.Store, bus mqtt.Bus, cfg Config) *Publisher {
	t.Helper()
	cfg.Store, cfg.Bus, cfg.Logger = store, bus, quiet()
	p := New(cfg)
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

// waitFor polls cond for up to 10s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// replay applies events to a fresh Memory the way a node's client would,
// from holding nothing at revision 0: the chain must have no gap.
func replay(t testing.TB, events []*mqtt.Event, from int64) (*client.Memory, int64) {
	t.Helper()
	m := client.NewMemory()
	return m, follow(t, m, events, from, false)
}

// follow applies events to m, which holds revision from, with the client's
// chain rules; an Event after a gap is an error, or (skipGaps) skipped as
// a client waiting for a catch-up would. It returns the revision reached.
func follow(t testing.TB, m *client.Memory, events []*mqtt.Event, from int64, skipGaps bool) int64 {
	t.Helper()
	last := from
	for _, ev := range events {
		switch {
		case ev.Type == mqtt.EventRelist:
			t.Fatalf("unexpected RELIST at %d", ev.Rev)
		case ev.Rev <= last:
			continue
		case ev.Prev > last && skipGaps:
			continue
		case ev.Prev > last:
			t.Fatalf("gap: event prev %d rev %d, holding %d", ev.Prev, ev.Rev, last)
		}
		if err := m.Apply(context.Background(), *ev); err != nil {
			t.Fatal(err)
		}
		last = ev.Rev
	}
	return last
}

// storeView is what node should hold according to the store.
func storeView(t testing.TB, store datastore.Store, node string) map[mqtt.ObjectRef]int64 {
	t.Helper()
	ctx := context.Background()
	page, err := store.List(ctx, "/registry/core/pods/", datastore.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	view := map[mqtt.ObjectRef]int64{}
	for _, kv := range page.Items {
		pod, err := decodePod(kv)
		if err != nil || pod.Spec.NodeName != node {
			continue
		}
		view[mqtt.ObjectRef{Resource: "pods", Namespace: pod.Namespace, Name: pod.Name}] = kv.ModRevision
		for _, r := range mqtt.PodReferences(pod) {
			if obj, err := store.Get(ctx, "/registry/core/"+r.Resource+"/"+r.Namespace+"/"+r.Name); err == nil {
				view[r] = obj.ModRevision
			}
		}
	}
	return view
}

// writer makes API-shaped objects directly in the store.
type writer struct {
	t     testing.TB
	store datastore.Store
}

func (w writer) put(res, name string, obj any) int64 {
	w.t.Helper()
	key := "/registry/core/" + res + "/default/" + name
	data, err := json.Marshal(obj)
	if err != nil {
		w.t.Fatal(err)
	}
	ctx := context.Background()
	cur, err := w.store.Get(ctx, key)
	var rev int64
	switch {
	case err == nil:
		rev, err = w.store.Update(ctx, key, data, cur.ModRevision)
	default:
		rev, err = w.store.Create(ctx, key, data)
	}
	if err != nil {
		w.t.Fatalf("write %s: %v", key, err)
	}
	return rev
}

func (w writer) del(res, name string) int64 {
	w.t.Helper()
	rev, _, err := w.store.Delete(context.Background(), "/registry/core/"+res+"/default/"+name, 0)
	if err != nil {
		w.t.Fatal(err)
	}
	return rev
}

func (w writer) configMap(name, value string) int64 {
	return w.put("configmaps", name, &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Data: map[string]string{"k": value}})
}

func (w writer) secret(name, value string) int64 {
	return w.put("secrets", name, &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, StringData: map[string]string{"k": value}})
}

// pod writes a pod on node that mounts configMap (if set) and pulls with
// secret (if set); label changes make updates.
func (w writer) pod(name, node, configMap, secret, label string) int64 {
	return w.put("pods", name, podObject(name, node, configMap, secret, label))
}

// podObject is the pod writer.pod writes.
func podObject(name, node, configMap, secret, label string) *corev1.Pod {
	spec := corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app", Image: "busybox"}}}
	if configMap != "" {
		spec.Volumes = []corev1.Volume{{Name: "c", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: configMap}}}}}
	}
	if secret != "" {
		spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: secret}}
	}
	return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"l": label}}, Spec: spec}
}

// stateOf is what m holds, as a State (to copy a Memory).
func stateOf(m *client.Memory) client.State {
	st := client.State{Rev: m.Rev()}
	for ref := range m.Versions() {
		o, _ := m.Get(ref)
		st.Objects = append(st.Objects, mqtt.Change{Type: mqtt.Added, ObjectRef: ref, Object: o.JSON})
	}
	return st
}
