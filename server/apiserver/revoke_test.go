package apiserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/server/auth"
)

// revocableAuthn is tokenAuthn whose viewer token can be revoked.
type revocableAuthn struct{ revoked atomic.Bool }

func (a *revocableAuthn) Authenticate(r *http.Request) (*auth.User, error) {
	if a.revoked.Load() && r.Header.Get("Authorization") == "Bearer viewer-token" {
		return nil, fmt.Errorf("%w: token deleted", auth.ErrUnauthenticated)
	}
	return tokenAuthn{}.Authenticate(r)
}

// followLogs writes a line, then follows until its context ends.
type followLogs struct{ ended chan error }

func (l *followLogs) StreamLogs(ctx context.Context, _ string, _ *corev1.Pod, _ *corev1.PodLogOptions, w io.Writer) error {
	if _, err := io.WriteString(w, "line 1\n"); err != nil {
		return err
	}
	<-ctx.Done()
	l.ended <- ctx.Err()
	return ctx.Err()
}

// A followed log stream ends once its credentials stop authenticating,
// within the recheck interval; the streamer's context is what ends.
func TestFollowedLogEndsWhenCredentialsRevoked(t *testing.T) {
	authn := &revocableAuthn{}
	logs := &followLogs{ended: make(chan error, 1)}
	e := newTestEnv(t, func(c *APIConfig) { c.Authn, c.Logs, c.RecheckInterval = authn, logs, 50*time.Millisecond })
	createBoundPod(t, e, "p1", "pi-1")
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+podPath+"/p1/log?container=main&follow=true", nil)
	req.Header.Set("Authorization", "Bearer viewer-token")
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	if line, err := rd.ReadString('\n'); err != nil || line != "line 1\n" {
		t.Fatalf("first line: got %q, %v", line, err)
	}
	time.Sleep(200 * time.Millisecond) // several rechecks pass while the token is good
	select {
	case err := <-logs.ended:
		t.Fatalf("the stream ended before the revocation: %v", err)
	default:
	}
	authn.revoked.Store(true)
	select {
	case err := <-logs.ended:
		if err != context.Canceled {
			t.Errorf("streamer's context: got %v, want canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the log stream still runs 5s after its token was revoked")
	}
	if rest, err := io.ReadAll(rd); err != nil || len(rest) != 0 {
		t.Errorf("after revocation: got %q, %v; want the stream to end cleanly", rest, err)
	}
}
