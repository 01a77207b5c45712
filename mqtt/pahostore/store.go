// Package pahostore is the message store every bramble paho client uses
// (the node's and the server's on an external broker).
package pahostore

import (
	"bytes"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"
)

// New returns paho's in-memory store, except that it keeps and
// hands out copies of packets. paho's own MemoryStore returns the packet
// it was given; after a reconnect, resume() marks that packet DUP while
// the writer of an earlier connection may still be encoding it, which the
// race detector reports (paho.mqtt.golang issue 703). Give it to every
// paho client with SetStore.
func New() paho.Store { return &copyingStore{inner: paho.NewMemoryStore()} }

type copyingStore struct {
	inner *paho.MemoryStore
}

func (s *copyingStore) Open()          { s.inner.Open() }
func (s *copyingStore) Close()         { s.inner.Close() }
func (s *copyingStore) Reset()         { s.inner.Reset() }
func (s *copyingStore) All() []string  { return s.inner.All() }
func (s *copyingStore) Del(key string) { s.inner.Del(key) }

func (s *copyingStore) Put(key string, p packets.ControlPacket) { s.inner.Put(key, copyPacket(p)) }

func (s *copyingStore) Get(key string) packets.ControlPacket {
	p := s.inner.Get(key)
	if p == nil {
		return nil
	}
	return copyPacket(p)
}

// copyPacket round-trips p through its wire form; a packet that will not
// encode is kept as is (paho would fail to send it anyway).
func copyPacket(p packets.ControlPacket) packets.ControlPacket {
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		return p
	}
	cp, err := packets.ReadPacket(&buf)
	if err != nil {
		return p
	}
	return cp
}
