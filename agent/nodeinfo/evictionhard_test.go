package nodeinfo

import (
	"strings"
	"testing"
)

func TestParseEvictionHard(t *testing.T) {
	got, err := ParseEvictionHard("memory.available<100Mi, nodefs.available<10%,nodefs.inodesFree<5%,pid.available<2%")
	if err != nil {
		t.Fatal(err)
	}
	want := Thresholds{MemoryAvailable: Threshold{Bytes: 100 << 20}, DiskFree: Threshold{Percent: 10},
		InodesFree: Threshold{Percent: 5}, PIDsFree: Threshold{Percent: 2}}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if d := WithDefaults(Thresholds{DiskFree: Threshold{Percent: 30}}); d.DiskFree.Percent != 30 || d.MemoryAvailable.Bytes != 100<<20 {
		t.Errorf("WithDefaults: got %+v, want nodefs 30%% kept and memory 100Mi defaulted", d)
	}
	for in, part := range map[string]string{
		"nodefs.available>10%":                     "want signal<quantity",
		"disk.available<10%":                       "unknown signal",
		"imagefs.available<15%":                    "set nodefs.available instead",
		"nodefs.available<10%,nodefs.available<5%": "given twice",
		"memory.available<lots":                    "--eviction-hard: memory.available",
		"nodefs.available<200%":                    "percentage",
		"memory.available<0":                       "zero threshold",
	} {
		if _, err := ParseEvictionHard(in); err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("ParseEvictionHard(%q): got %v, want an error containing %q", in, err, part)
		}
	}
}

func FuzzParseEvictionHard(f *testing.F) {
	for _, s := range []string{"memory.available<100Mi,nodefs.available<10%", "pid.available<1000", "", ",,", "nodefs.inodesFree<5.5%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseEvictionHard(s)
		if err != nil {
			return
		}
		for _, x := range []Threshold{th.MemoryAvailable, th.DiskFree, th.InodesFree, th.PIDsFree} {
			if x.Percent < 0 || x.Percent > 100 || x.Bytes < 0 {
				t.Fatalf("ParseEvictionHard(%q): got %+v, out of range", s, th)
			}
		}
	})
}
