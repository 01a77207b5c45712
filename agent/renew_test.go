package agent

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestRenewFailedSaysWhenOnlyAJoinHelps(t *testing.T) {
	var logs bytes.Buffer
	now := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &renewal{log: slog.New(slog.NewTextHandler(&logs, nil)), now: func() time.Time { return now }}
	r.renewFailed(now.Add(time.Hour), time.Second, errors.New("connection refused"))
	if got := logs.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, "retrying") {
		t.Errorf("failure before expiry: %q, want a warning that it retries", got)
	}
	logs.Reset()
	r.renewFailed(now.Add(-time.Hour), time.Second, errors.New("remote error: tls: expired certificate"))
	if got := logs.String(); !strings.Contains(got, "level=ERROR") || !strings.Contains(got, "must join again") {
		t.Errorf("failure after expiry: %q, want an error saying the node must join again", got)
	}
}
