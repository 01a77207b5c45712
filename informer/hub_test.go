package informer

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func event(rev int64) *Event {
	return &Event{Type: Added, Rev: rev, cur: ref{obj: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}}}
}

func drain(s *Subscription) (revs []int64, open bool) {
	for {
		select {
		case e, ok := <-s.Events():
			if !ok {
				return revs, false
			}
			revs = append(revs, e.Rev)
		default:
			return revs, true
		}
	}
}

// TestHubReplaysKeepsAndCutsOff: a subscription gets the kept changes
// after its revision, then new ones; one from before what is kept is
// refused; a full one is cut off; a reset (a relist) ends them all.
func TestHubReplaysKeepsAndCutsOff(t *testing.T) {
	var h hub
	if _, ok := h.subscribe(0); ok {
		t.Fatal("subscribed before the first list")
	}
	h.reset(10)
	for rev := int64(11); rev <= 13; rev++ {
		h.publish(event(rev))
	}
	s, ok := h.subscribe(11)
	if !ok {
		t.Fatal("subscribe after 11: refused")
	}
	h.publish(event(14))
	h.publish(&Event{Type: Progress, Rev: 14})
	if revs, open := drain(s); !open || len(revs) != 4 || revs[0] != 12 || revs[2] != 14 || revs[3] != 14 {
		t.Fatalf("got %v (open %v), want 12 13 14 and the progress at 14", revs, open)
	}
	if _, ok := h.subscribe(9); ok {
		t.Fatal("subscribed from before the first list")
	}
	for rev := int64(15); rev < 15+ringSize; rev++ {
		h.publish(event(rev))
	}
	if _, ok := h.subscribe(13); ok {
		t.Fatal("subscribed from a revision no longer kept")
	}
	if _, open := drain(s); !open {
		t.Fatal("cut off while it kept up")
	}
	for rev := int64(15 + ringSize); rev < 15+ringSize+2*subBuffer; rev++ { // more than its buffer (kept replay + subBuffer)
		h.publish(event(rev))
	}
	if _, open := drain(s); open {
		t.Fatal("a subscriber that fell behind by more than its buffer was not cut off")
	}
	late, ok := h.subscribe(14 + ringSize + 2*subBuffer - 10)
	if !ok {
		t.Fatal("subscribe to recent changes: refused")
	}
	h.reset(20000)
	if _, open := drain(late); open {
		t.Fatal("a relist left a subscriber running")
	}
}
