package nodelifecycle

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func secs(s int64) *int64 { return &s }

func TestEvictionDelay(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(ago time.Duration) *metav1.Time { v := metav1.NewTime(now.Add(-ago)); return &v }
	unreachable := corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: at(10 * time.Second)}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: at(0)}
	custom := corev1.Taint{Key: "example.com/maint", Value: "yes", Effect: corev1.TaintEffectNoExecute}
	tol := func(key string, s *int64) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: s}
	}
	cases := []struct {
		name        string
		tolerations []corev1.Toleration
		taints      []corev1.Taint
		wantEvict   bool
		wantWait    time.Duration
	}{
		{"no taints", nil, nil, false, 0},
		{"untolerated", nil, []corev1.Taint{unreachable}, true, 0},
		{"tolerated for ever", []corev1.Toleration{tol(corev1.TaintNodeUnreachable, nil)}, []corev1.Taint{unreachable}, false, 0},
		{"counted from timeAdded", []corev1.Toleration{tol(corev1.TaintNodeUnreachable, secs(300))}, []corev1.Taint{unreachable}, true, 290 * time.Second},
		{"ran out", []corev1.Toleration{tol(corev1.TaintNodeUnreachable, secs(5))}, []corev1.Taint{unreachable}, true, 0},
		{"negative seconds mean now", []corev1.Toleration{tol(corev1.TaintNodeUnreachable, secs(-1))}, []corev1.Taint{unreachable}, true, 0},
		{"shortest of matching", []corev1.Toleration{tol(corev1.TaintNodeUnreachable, secs(300)), tol("", secs(60)), tol(corev1.TaintNodeUnreachable, nil)},
			[]corev1.Taint{unreachable}, true, 50 * time.Second},
		{"earliest taint wins", []corev1.Toleration{tol(corev1.TaintNodeUnreachable, secs(300)), tol(corev1.TaintNodeNotReady, secs(30))},
			[]corev1.Taint{unreachable, notReady}, true, 30 * time.Second},
		{"one taint untolerated", []corev1.Toleration{tol(corev1.TaintNodeUnreachable, nil)}, []corev1.Taint{unreachable, custom}, true, 0},
		{"value must match with Equal", []corev1.Toleration{{Key: "example.com/maint", Operator: corev1.TolerationOpEqual, Value: "no", Effect: corev1.TaintEffectNoExecute}},
			[]corev1.Taint{custom}, true, 0},
		{"Equal value matches", []corev1.Toleration{{Key: "example.com/maint", Operator: corev1.TolerationOpEqual, Value: "yes"}},
			[]corev1.Taint{custom}, false, 0},
		{"no timeAdded counts from now", []corev1.Toleration{{Key: "example.com/maint", Operator: corev1.TolerationOpExists, TolerationSeconds: secs(7), Effect: corev1.TaintEffectNoExecute}},
			[]corev1.Taint{custom}, true, 7 * time.Second},
		{"NoSchedule toleration does not count", []corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Taint{unreachable}, true, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wait, evict := evictionDelay(tc.tolerations, tc.taints, now)
			if evict != tc.wantEvict || wait != tc.wantWait {
				t.Fatalf("got evict=%v wait=%v, want evict=%v wait=%v", evict, wait, tc.wantEvict, tc.wantWait)
			}
		})
	}
}

func TestReconcileTaints(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	earlier := metav1.NewTime(now.Add(-time.Minute))
	user := corev1.Taint{Key: "example.com/edge", Value: "true", Effect: corev1.TaintEffectNoSchedule}
	oldUnreachable := corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &earlier}
	cases := []struct {
		name        string
		in          []corev1.Taint
		ready       corev1.ConditionStatus
		wantKeys    []string
		wantChanged bool
	}{
		{"ready, nothing to do", []corev1.Taint{user}, corev1.ConditionTrue, []string{user.Key}, false},
		{"no Ready condition", nil, "", nil, false},
		{"unknown adds unreachable", []corev1.Taint{user}, corev1.ConditionUnknown, []string{user.Key, corev1.TaintNodeUnreachable}, true},
		{"unknown keeps existing", []corev1.Taint{oldUnreachable}, corev1.ConditionUnknown, []string{corev1.TaintNodeUnreachable}, false},
		{"false swaps taints", []corev1.Taint{oldUnreachable, user}, corev1.ConditionFalse, []string{user.Key, corev1.TaintNodeNotReady}, true},
		{"true removes", []corev1.Taint{oldUnreachable, user}, corev1.ConditionTrue, []string{user.Key}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, changed := reconcileTaints(tc.in, wantedTaint(tc.ready), now)
			var keys []string
			for _, tt := range out {
				keys = append(keys, tt.Key)
				if tt.Effect == corev1.TaintEffectNoExecute && tt.TimeAdded == nil {
					t.Fatalf("taint %s: got no timeAdded, want one", tt.Key)
				}
			}
			if changed != tc.wantChanged || len(keys) != len(tc.wantKeys) {
				t.Fatalf("got %v changed=%v, want %v changed=%v", keys, changed, tc.wantKeys, tc.wantChanged)
			}
			for i := range keys {
				if keys[i] != tc.wantKeys[i] {
					t.Fatalf("got %v, want %v", keys, tc.wantKeys)
				}
			}
		})
	}
	out, _ := reconcileTaints([]corev1.Taint{oldUnreachable}, wantedTaint(corev1.ConditionUnknown), now)
	if !out[0].TimeAdded.Equal(&earlier) {
		t.Fatalf("got timeAdded %v, want the first one %v kept", out[0].TimeAdded, earlier)
	}
}

func TestExempt(t *testing.T) {
	yes := true
	owned := func(apiVersion, kind string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{
			{APIVersion: apiVersion, Kind: kind, Name: "x", UID: "u", Controller: &yes}}}}
	}
	mirror := owned("apps/v1", "ReplicaSet")
	mirror.Annotations = map[string]string{MirrorPodAnnotation: "abc"}
	notController := owned("apps/v1", "ReplicaSet")
	notController.OwnerReferences[0].Controller = nil
	cases := []struct {
		name   string
		pod    *corev1.Pod
		exempt bool
	}{
		{"replicaset pod", owned("apps/v1", "ReplicaSet"), false},
		{"job pod", owned("batch/v1", "Job"), false},
		{"daemonset pod", owned("apps/v1", "DaemonSet"), true},
		{"bare pod", &corev1.Pod{}, true},
		{"owner but no controller", notController, true},
		{"static pod", mirror, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := exempt(tc.pod) != ""; got != tc.exempt {
				t.Fatalf("got exempt=%v (%q), want %v", got, exempt(tc.pod), tc.exempt)
			}
		})
	}
}
