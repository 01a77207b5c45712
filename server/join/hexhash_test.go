package join

import (
	"regexp"
	"strings"
	"testing"
)

// hexHashRegexp is the rule isHexHash implements without a regexp.
var hexHashRegexp = regexp.MustCompile(`^[0-9a-f]{64}$`)

var hexHashSeeds = []string{"", "0", strings.Repeat("a", 64), strings.Repeat("0123456789abcdef", 4),
	strings.Repeat("A", 64), strings.Repeat("g", 64), strings.Repeat("a", 63), strings.Repeat("a", 65),
	strings.Repeat("a", 63) + "\n", strings.Repeat("a", 64) + "\n", strings.Repeat("a", 62) + "é"}

func TestIsHexHashMatchesTheRegexp(t *testing.T) {
	for _, s := range hexHashSeeds {
		if got, want := isHexHash(s), hexHashRegexp.MatchString(s); got != want {
			t.Errorf("isHexHash(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzIsHexHash(f *testing.F) {
	for _, s := range hexHashSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isHexHash(s), hexHashRegexp.MatchString(s); got != want {
			t.Errorf("isHexHash(%q) = %v, want %v", s, got, want)
		}
	})
}
