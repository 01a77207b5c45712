package main

import (
	"strings"
	"syscall"
	"testing"
)

func TestParseFlags(t *testing.T) {
	cfg, _, report, err := parseFlags([]string{"-server", "https://127.0.0.1:6443", "-token", "t", "-nodes", "5",
		"-cpu", "2", "-memory", "1Gi", "-labels", "zone=attic, tier=edge", "-heartbeat", "5s", "-join-workers", "32",
		"-report-receipts", "configmaps/default/shared"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Nodes != 5 || cfg.CPU.String() != "2" || cfg.Memory.String() != "1Gi" || cfg.Labels["tier"] != "edge" || cfg.Labels["zone"] != "attic" || cfg.JoinWorkers != 32 {
		t.Errorf("got %+v, want 5 nodes, cpu 2, memory 1Gi, labels zone=attic tier=edge, 32 join workers", cfg)
	}
	if report != "configmaps/default/shared" {
		t.Errorf("-report-receipts: got %q", report)
	}
	cases := map[string][]string{
		`-cpu "four"`:         {"-cpu", "four"},
		`-memory "lots"`:      {"-memory", "lots"},
		`-labels: "novalue"`:  {"-labels", "novalue"},
		`-log-level "loud"`:   {"-log-level", "loud"},
		`unexpected argument`: {"extra"},
		`-report-receipts "shared": want resource/namespace/name`: {"-report-receipts", "shared"},
	}
	for want, args := range cases {
		if _, _, _, err := parseFlags(args); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseFlags(%q): got %v, want an error containing %s", args, err, want)
		}
	}
}

func TestRaiseFileLimit(t *testing.T) {
	got, err := raiseFileLimit()
	if err != nil {
		t.Fatal(err)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if got != lim.Max || lim.Cur != lim.Max {
		t.Errorf("got limit %d (soft %d), want the hard limit %d", got, lim.Cur, lim.Max)
	}
}
