package pahostore

import (
	"bytes"
	"testing"

	"github.com/eclipse/paho.mqtt.golang/packets"
)

func TestPahoStoreHandsOutCopies(t *testing.T) {
	s := New()
	s.Open()
	defer s.Close()
	pub := packets.NewControlPacket(packets.Publish).(*packets.PublishPacket)
	pub.TopicName, pub.Qos, pub.MessageID, pub.Payload = "bramble/v1/nodes/pi-1/ack", 1, 7, []byte(`{"type":"ACK","rev":3}`)
	s.Put("o.7", pub)
	got := s.Get("o.7").(*packets.PublishPacket)
	if got == pub || got.TopicName != pub.TopicName || got.MessageID != 7 || !bytes.Equal(got.Payload, pub.Payload) {
		t.Fatalf("Get: got %v (same pointer: %v), want an equal copy of %v", got, got == pub, pub)
	}
	got.Dup = true
	if again := s.Get("o.7").(*packets.PublishPacket); again.Dup {
		t.Error("a change to one copy showed in the next Get: got Dup true, want false")
	}
	s.Del("o.7")
	if p := s.Get("o.7"); p != nil {
		t.Errorf("Get after Del: got %v, want nil", p)
	}
}
