package controllers

import (
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestSpamFilterBurstThenOnePerRefill(t *testing.T) {
	f := newSpamFilter()
	rs := &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet", Namespace: "ns", Name: "web", UID: "u1"}}
	other := &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet", Namespace: "ns", Name: "api", UID: "u2"}}
	now := time.Unix(1000, 0)
	for i := range spamBurst {
		if !f.allow(rs, now) {
			t.Fatalf("event %d of the burst refused, want the first %d allowed", i+1, spamBurst)
		}
	}
	if f.allow(rs, now.Add(time.Minute)) {
		t.Fatalf("event %d allowed a minute later, want refused", spamBurst+1)
	}
	if !f.allow(other, now) {
		t.Fatal("another object's first event refused, want allowed")
	}
	if !f.allow(rs, now.Add(spamRefill)) {
		t.Fatal("event refused after a refill period, want one allowed")
	}
	if f.allow(rs, now.Add(spamRefill)) {
		t.Fatal("second event after one refill period allowed, want refused")
	}
}

func TestSpamFilterForgetsRefilledBuckets(t *testing.T) {
	f := newSpamFilter()
	now := time.Unix(1000, 0)
	for i := range recentMax {
		ev := &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p" + strconv.Itoa(i), UID: types.UID(strconv.Itoa(i))}}
		f.allow(ev, now)
	}
	later := &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "late", UID: "late"}}
	f.allow(later, now.Add(spamBurst*spamRefill))
	if got := len(f.buckets); got != 1 {
		t.Fatalf("buckets after all refilled = %d, want 1 (the new one)", got)
	}
}
