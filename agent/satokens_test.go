package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// tokenAPI answers TokenRequests with token-<n>, valid for the seconds
// asked, and records the last request.
func tokenAPI(t *testing.T, now func() time.Time) (*httptest.Server, *atomic.Int32, *atomic.Pointer[authenticationv1.TokenRequest]) {
	var n atomic.Int32
	var last atomic.Pointer[authenticationv1.TokenRequest]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/v1/namespaces/team/serviceaccounts/robot/token" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		var req authenticationv1.TokenRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		last.Store(&req)
		req.Status.Token = "token-" + strconv.Itoa(int(n.Add(1)))
		req.Status.ExpirationTimestamp = metav1.NewTime(now().Add(time.Duration(*req.Spec.ExpirationSeconds) * time.Second))
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(&req)
	}))
	t.Cleanup(srv.Close)
	return srv, &n, &last
}

func TestPodTokensRenewAt80Percent(t *testing.T) {
	clock := time.Now()
	now := func() time.Time { return clock }
	srv, calls, last := tokenAPI(t, now)
	src := newPodTokens()
	src.now = now
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team", UID: "u1"},
		Spec: corev1.PodSpec{ServiceAccountName: "robot"}}
	exp := int64(1000)
	proj := &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &exp, Audience: "vault"}
	if _, err := src.Token(context.Background(), pod, proj); err == nil {
		t.Fatal("a token before the agent is connected")
	}
	src.connect(srv.Client(), srv.URL)
	get := func() string {
		t.Helper()
		tok, err := src.Token(context.Background(), pod, proj)
		if err != nil {
			t.Fatal(err)
		}
		return string(tok)
	}
	if got := get(); got != "token-1" {
		t.Fatalf("first token %q", got)
	}
	req := last.Load()
	if ref := req.Spec.BoundObjectRef; ref == nil || ref.Kind != "Pod" || ref.Name != "web" || ref.UID != "u1" ||
		len(req.Spec.Audiences) != 1 || req.Spec.Audiences[0] != "vault" || *req.Spec.ExpirationSeconds != 1000 {
		t.Fatalf("request %+v", req.Spec)
	}
	clock = clock.Add(799 * time.Second)
	if got := get(); got != "token-1" || calls.Load() != 1 {
		t.Fatalf("at 79.9 %% of its life: got %q after %d requests, want token-1 after 1", got, calls.Load())
	}
	clock = clock.Add(2 * time.Second)
	if got := get(); got != "token-2" {
		t.Fatalf("past 80 %% of its life: got %q, want token-2", got)
	}
}
