package rlimit

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
)

// mayRaiseHard reports whether this process has CAP_SYS_RESOURCE (bit 24
// of CapEff): root in a container often has not.
func mayRaiseHard(t *testing.T) bool {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return caps&(1<<24) != 0
		}
	}
	t.Fatal("no CapEff in /proc/self/status")
	return false
}

func TestRaiseLiftsTheLimits(t *testing.T) {
	orig, err := get()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := set(orig); err != nil {
			t.Errorf("restore the limit: %v", err)
		}
	})
	low := Limit{Soft: 512, Hard: orig.Hard}
	if err := set(low); err != nil {
		t.Fatal(err)
	}
	res, err := Raise()
	if err != nil {
		t.Fatal(err)
	}
	if res.Before != low {
		t.Errorf("before: got %+v, want %+v", res.Before, low)
	}
	ceiling, err := nrOpen()
	if err != nil {
		t.Fatal(err)
	}
	want, refused := Limit{Soft: ceiling, Hard: ceiling}, false // may raise the hard limit: up to fs.nr_open
	if !mayRaiseHard(t) {
		want, refused = Limit{Soft: orig.Hard, Hard: orig.Hard}, ceiling > orig.Hard // else up to the hard limit
	}
	if res.After != want || res.Refused != refused {
		t.Errorf("after: got %+v (refused %v), want %+v (refused %v)", res.After, res.Refused, want, refused)
	}
	if now, _ := get(); now != res.After {
		t.Errorf("limit in force: got %+v, want %+v (what Raise reported)", now, res.After)
	}
}

func TestRaiseLoggedSaysWhatItDid(t *testing.T) {
	orig, err := get()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = set(orig) })
	if err := set(Limit{Soft: 300, Hard: orig.Hard}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	RaiseLogged(slog.New(slog.NewTextHandler(&out, nil)))
	now, _ := get()
	want := fmt.Sprintf("soft=%d hard=%d was=300", now.Soft, now.Hard)
	if !strings.Contains(out.String(), "open file limit") || !strings.Contains(out.String(), want) || now.Soft != now.Hard {
		t.Errorf("log: got %q, want the open file limit raised (%s)", out.String(), want)
	}
}
