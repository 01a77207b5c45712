package nodeipam

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestNewAllocatorRejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		cidr string
		mask int
		want string
	}{
		{"10.42.0.0/16", 8, "--node-cidr-mask-size 8"},
		{"10.42.0.0/16", 31, "--node-cidr-mask-size 31"},
		{"10.0.0.0/4", 30, "2^26 ranges"},
		{"fd00::/48", 64, "--cluster-cidr fd00::/48"},
	} {
		_, err := newAllocator(netip.MustParsePrefix(tc.cidr), tc.mask)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("newAllocator(%s, %d): got %v, want an error naming %q", tc.cidr, tc.mask, err, tc.want)
		}
	}
}

func TestAllocateInOrderUntilFull(t *testing.T) {
	a, err := newAllocator(netip.MustParsePrefix("10.42.0.0/22"), 24)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"10.42.0.0/24", "10.42.1.0/24", "10.42.2.0/24", "10.42.3.0/24"} {
		p, err := a.allocate()
		if err != nil || p.String() != want {
			t.Fatalf("allocate: got %v, %v, want %s", p, err, want)
		}
	}
	if p, err := a.allocate(); !errors.Is(err, ErrFull) {
		t.Fatalf("allocate on a full range: got %v, %v, want ErrFull", p, err)
	}
	a.release(netip.MustParsePrefix("10.42.2.0/24"))
	if p, err := a.allocate(); err != nil || p.String() != "10.42.2.0/24" {
		t.Fatalf("allocate after release: got %v, %v, want 10.42.2.0/24", p, err)
	}
}

func TestOccupyIsSkippedAndRejectsForeignRanges(t *testing.T) {
	a, err := newAllocator(netip.MustParsePrefix("10.42.0.0/16"), 24)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"10.42.0.0/24", "10.42.1.0/24"} {
		if !a.occupy(netip.MustParsePrefix(s)) {
			t.Fatalf("occupy %s: got false, want true", s)
		}
	}
	for _, s := range []string{"10.42.1.0/24", "10.43.0.0/24", "10.42.5.0/25", "10.42.5.1/24"} {
		if a.occupy(netip.MustParsePrefix(s)) {
			t.Errorf("occupy %s: got true, want false (taken or not a range of ours)", s)
		}
	}
	if p, _ := a.allocate(); p.String() != "10.42.2.0/24" {
		t.Fatalf("allocate: got %v, want 10.42.2.0/24 (the first free)", p)
	}
}

// Every range of a large cluster CIDR is handed out exactly once, across
// the 64-range words of the bitmap, whatever was released in between.
func TestAllocateEveryRangeOnce(t *testing.T) {
	a, err := newAllocator(netip.MustParsePrefix("10.0.0.0/8"), 20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[netip.Prefix]bool{}
	for range a.count {
		p, err := a.allocate()
		if err != nil {
			t.Fatalf("allocate after %d: %v", len(seen), err)
		}
		if seen[p] || !a.cluster.Contains(p.Addr()) {
			t.Fatalf("allocate: got %s twice or outside %s", p, a.cluster)
		}
		seen[p] = true
	}
	if _, err := a.allocate(); !errors.Is(err, ErrFull) {
		t.Fatalf("allocate on full: got %v, want ErrFull", err)
	}
	freed := []string{"10.0.16.0/20", "10.200.0.0/20", "10.255.240.0/20"}
	for _, s := range freed {
		a.release(netip.MustParsePrefix(s))
	}
	got := map[string]bool{}
	for range freed {
		p, err := a.allocate()
		if err != nil {
			t.Fatal(err)
		}
		got[p.String()] = true
	}
	for _, s := range freed {
		if !got[s] {
			t.Errorf("after release: got %v, want %s among them", got, s)
		}
	}
}
