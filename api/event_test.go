package api

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// stranger is an Object the scheme does not know.
type stranger struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}

func (s *stranger) DeepCopyObject() runtime.Object { c := *s; return &c }

func TestNewEvent(t *testing.T) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC)
	meta := func(ns, name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: ns, Name: name, UID: "u-1", ResourceVersion: "42"}
	}
	tests := []struct {
		name                     string
		obj                      Object
		wantNS, wantKind, wantAV string
	}{
		{"pod", &corev1.Pod{ObjectMeta: meta("shop", "web")}, "shop", "Pod", "v1"},
		{"deployment", &appsv1.Deployment{ObjectMeta: meta("shop", "web")}, "shop", "Deployment", "apps/v1"},
		{"cluster-scoped node", &corev1.Node{ObjectMeta: meta("", "pi-1")}, "default", "Node", "v1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := NewEvent(tc.obj, "test-controller", corev1.EventTypeWarning, "Failed", "it broke", now)
			if err != nil {
				t.Fatalf("NewEvent: %v", err)
			}
			io := ev.InvolvedObject
			if ev.Namespace != tc.wantNS || io.Kind != tc.wantKind || io.APIVersion != tc.wantAV ||
				io.Namespace != tc.obj.GetNamespace() || io.Name != tc.obj.GetName() || io.UID != "u-1" || io.ResourceVersion != "42" {
				t.Errorf("got namespace %q, involvedObject %+v; want namespace %q, %s %s about %s", ev.Namespace, io, tc.wantNS, tc.wantAV, tc.wantKind, tc.obj.GetName())
			}
			if !strings.HasPrefix(ev.Name, tc.obj.GetName()+".") || ev.Count != 1 || !ev.FirstTimestamp.Time.Equal(now) ||
				!ev.LastTimestamp.Time.Equal(now) || ev.Source.Component != "test-controller" || ev.ReportingController != "test-controller" ||
				ev.Type != corev1.EventTypeWarning || ev.Reason != "Failed" || ev.Message != "it broke" {
				t.Errorf("got %+v", ev)
			}
		})
	}
}

func TestNewEventLimits(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: strings.Repeat("p", 253)}}
	a, err := NewEvent(pod, "c", corev1.EventTypeNormal, "R", strings.Repeat("m", 5000), now)
	if err != nil {
		t.Fatalf("NewEvent: %v", err)
	}
	b, _ := NewEvent(pod, "c", corev1.EventTypeNormal, "R", "m", now)
	if a.Name == b.Name {
		t.Errorf("two events in one nanosecond share the name %q", a.Name)
	}
	if prefix := strings.Repeat("p", 200) + "."; !strings.HasPrefix(a.Name, prefix) || len(a.Name) > 253 {
		t.Errorf("name %q (%d characters): want the object's first 200 characters, a dot and a suffix, at most 253", a.Name, len(a.Name))
	}
	if len(a.Message) != MaxEventMessage || !strings.HasSuffix(a.Message, "...") {
		t.Errorf("message of %d characters ending %q, want %d ending \"...\"", len(a.Message), a.Message[len(a.Message)-3:], MaxEventMessage)
	}
	if _, err := NewEvent(&stranger{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, "c", corev1.EventTypeNormal, "R", "m", now); err == nil {
		t.Error("an object of no known kind: got no error, want one")
	}
}
