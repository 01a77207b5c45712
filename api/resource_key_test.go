package api

import "testing"

// TestKeyIsPrefixAndName: Key, made in one allocation, is what Prefix and
// the name make, for every kind (stored as another version or not).
func TestKeyIsPrefixAndName(t *testing.T) {
	for _, r := range All() {
		for _, ns := range []string{"", "default"} {
			want := r.Prefix(ns) + "obj"
			if !r.Namespaced {
				want = r.Prefix("") + "obj"
			}
			if got := r.Key(ns, "obj"); got != want {
				t.Errorf("%s Key(%q): got %q, want %q", r.Name, ns, got, want)
			}
		}
	}
}
