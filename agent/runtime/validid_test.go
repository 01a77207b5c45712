package runtime

import (
	"regexp"
	"strings"
	"testing"
)

// idRegexp is the rule validID implements without a regexp.
var idRegexp = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,75}$`)

var idSeeds = []string{"", "a", "0", "-a", ".a", "_a", "a-b.c_d", "pod-5f2c1e0e-2b7d-4c1e-9c1e-1b2c3d4e5f60",
	strings.Repeat("a", 76), strings.Repeat("a", 77), "a b", "a/b", "é", "aé", "a\n", "a\x00", "\xff"}

func TestValidIDMatchesTheRegexp(t *testing.T) {
	for _, s := range idSeeds {
		if got, want := validID(s), idRegexp.MatchString(s); got != want {
			t.Errorf("validID(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzValidID(f *testing.F) {
	for _, s := range idSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validID(s), idRegexp.MatchString(s); got != want {
			t.Errorf("validID(%q) = %v, want %v", s, got, want)
		}
	})
}
