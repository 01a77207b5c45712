package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

func TestReceiptReporter(t *testing.T) {
	ref, err := parseObjectRef("configmaps/default/shared")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := newReceiptReporter(ref, &out)
	at := time.Unix(5, 123)
	other := mqtt.Change{Type: mqtt.Modified, ObjectRef: mqtt.ObjectRef{Resource: "configmaps", Namespace: "default", Name: "other"}}
	r.onReceive("fan-1", &mqtt.Event{Type: mqtt.EventChanges, Rev: 7, Changes: []mqtt.Change{other}}, at)
	r.onReceive("fan-2", &mqtt.Event{Type: mqtt.EventChanges, Rev: 9, Changes: []mqtt.Change{other, {Type: mqtt.Modified, ObjectRef: ref}}}, at)
	ctx, cancel := context.WithCancel(context.Background())
	go r.flushEvery(ctx, time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for r.buffered() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	r.say("running")
	if want := "recv fan-2 9 5000000123\nrunning\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	for _, bad := range []string{"", "configmaps/shared", "/default/x", "configmaps/default/"} {
		if _, err := parseObjectRef(bad); err == nil {
			t.Errorf("parseObjectRef(%q): no error", bad)
		}
	}
}

func (r *receiptReporter) buffered() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.w.Buffered()
}
