// Package idruletest holds the check that a rule written with idrule
// accepts exactly what the regular expression it replaces accepts.
package idruletest

import (
	"regexp"
	"testing"
)

// Seeds are inputs that sit on the edges of the rules: empty, lone
// punctuation, bytes outside ASCII, line ends, and lengths around the
// usual bounds.
func Seeds() []string {
	seeds := []string{"", "a", "0", "A9", "-", ".", "_", "-a", ".a", "_a", "a-b.c_d", "a b", "a/b",
		"é", "aé", "a\n", "\n", "a\x00", "\xff", "0123456789abcdef", "ABCDEF"}
	for _, n := range []int{63, 64, 65, 75, 76, 77} {
		for _, c := range []byte{'a', 'g', 'A', '-'} {
			b := make([]byte, n)
			for i := range b {
				b[i] = c
			}
			seeds = append(seeds, string(b))
		}
	}
	return seeds
}

// Same fails t when rule and the expression pattern disagree on s.
func Same(t testing.TB, name string, rule func(string) bool, pattern string, s string) {
	t.Helper()
	if got, want := rule(s), regexp.MustCompile(pattern).MatchString(s); got != want {
		t.Errorf("%s(%q) = %v, but %s says %v", name, s, got, pattern, want)
	}
}

// Fuzz seeds f and checks rule against pattern on every input.
func Fuzz(f *testing.F, name string, rule func(string) bool, pattern string) {
	for _, s := range Seeds() {
		f.Add(s)
	}
	re := regexp.MustCompile(pattern)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := rule(s), re.MatchString(s); got != want {
			t.Errorf("%s(%q) = %v, but %s says %v", name, s, got, pattern, want)
		}
	})
}
