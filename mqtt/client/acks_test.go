package client

import (
	"sync"
	"testing"
	"time"
)

type sentAcks struct {
	mu   sync.Mutex
	revs []int64
}

func (s *sentAcks) send(rev int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revs = append(s.revs, rev)
}

func (s *sentAcks) got() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.revs...)
}

// TestAckerGathersABurst: Events applied within the delay are acknowledged
// once, with the newest revision; a later one starts a new wait.
func TestAckerGathersABurst(t *testing.T) {
	s := &sentAcks{}
	a := &acker{delay: 100 * time.Millisecond, send: s.send}
	for _, rev := range []int64{5, 7, 6} {
		a.add(rev)
	}
	time.Sleep(20 * time.Millisecond)
	if got := s.got(); len(got) != 0 {
		t.Fatalf("acks sent before half the delay: %v", got)
	}
	time.Sleep(150 * time.Millisecond)
	a.add(9)
	time.Sleep(150 * time.Millisecond)
	if got := s.got(); len(got) != 2 || got[0] != 7 || got[1] != 9 {
		t.Fatalf("acks sent: got %v, want [7 9]", got)
	}
}

// TestAckerDropAndClose: a HELLO drops the waiting ack; after close
// nothing is sent.
func TestAckerDropAndClose(t *testing.T) {
	s := &sentAcks{}
	a := &acker{delay: 40 * time.Millisecond, send: s.send}
	a.add(3)
	a.drop()
	time.Sleep(100 * time.Millisecond)
	a.add(4)
	time.Sleep(100 * time.Millisecond)
	a.add(5)
	a.close()
	a.add(6)
	time.Sleep(100 * time.Millisecond)
	if got := s.got(); len(got) != 1 || got[0] != 4 {
		t.Fatalf("acks sent: got %v, want [4] (3 dropped, 5 and 6 closed)", got)
	}
}
