package broker_test

import (
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
)

// TestBusHasSubscribers: the embedded bus tells whether a subscription
// (a client's, with wildcards, or an inline one) matches a topic now.
func TestBusHasSubscribers(t *testing.T) {
	env := newEmbedded(t, nil)
	checker, ok := env.bus.(mqtt.SubscriberChecker)
	if !ok {
		t.Fatalf("the embedded bus %T is not a mqtt.SubscriberChecker", env.bus)
	}
	pods, cms := mqtt.WatchTopic("pods", "default", "web"), mqtt.WatchTopic("configmaps", "default", "conf")
	if checker.HasSubscribers(pods) {
		t.Fatalf("HasSubscribers(%s) with no subscription: got true", pods)
	}
	viewer := env.ca.clientCert(t, "alice", broker.ViewerGroup)
	c := mustDial(t, pahoOptions(env.addr, "alice", clientTLS(env.ca.CAPool(), &viewer), newInbox()))
	subscribe(t, c, mqtt.WatchPrefix+"pods/+/#")
	deadline := time.Now().Add(5 * time.Second)
	for !checker.HasSubscribers(pods) {
		if time.Now().After(deadline) {
			t.Fatalf("HasSubscribers(%s) after a client subscribed pods/+/#: still false", pods)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if checker.HasSubscribers(cms) {
		t.Errorf("HasSubscribers(%s) with only pods watched: got true", cms)
	}
	if err := env.broker.Bus().Subscribe(mqtt.WatchPrefix+"configmaps/#", 1, func(string, []byte) {}); err != nil {
		t.Fatal(err)
	}
	if !checker.HasSubscribers(cms) {
		t.Errorf("HasSubscribers(%s) with an inline subscription: got false", cms)
	}
}
