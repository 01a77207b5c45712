package encryption

import (
	"regexp"
	"strings"
	"testing"
)

// keyIDRegexp is the rule validKeyID implements without a regexp.
var keyIDRegexp = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

var keyIDSeeds = []string{"", "k", "key-2026.11_a", strings.Repeat("a", 64), strings.Repeat("a", 65),
	"a b", "a/b", "é", "a\n", "\n", "a\x00", "\xff", "-", ".", "_", "A9"}

func TestValidKeyIDMatchesTheRegexp(t *testing.T) {
	for _, id := range keyIDSeeds {
		if got, want := validKeyID(id), keyIDRegexp.MatchString(id); got != want {
			t.Errorf("validKeyID(%q) = %v, want %v", id, got, want)
		}
	}
}

func FuzzValidKeyID(f *testing.F) {
	for _, id := range keyIDSeeds {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := validKeyID(id), keyIDRegexp.MatchString(id); got != want {
			t.Errorf("validKeyID(%q) = %v, want %v", id, got, want)
		}
	})
}
