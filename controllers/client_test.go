package controllers

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestDepsLogger(t *testing.T) {
	Deps{}.Logger("quiet").Info("dropped") // a nil Log must not panic

	var buf bytes.Buffer
	d := Deps{Log: slog.New(slog.NewTextHandler(&buf, nil))}
	d.Logger("replicaset").Info("synced")
	if got := buf.String(); !strings.Contains(got, "controller=replicaset") || !strings.Contains(got, "msg=synced") {
		t.Errorf("got %q, want a record with controller=replicaset msg=synced", got)
	}
}
