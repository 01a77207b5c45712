package api

import (
	"fmt"
	"testing"
)

// TestNameSet holds nameSet to a map's answers, below and past the size
// at which it moves to a map.
func TestNameSet(t *testing.T) {
	for _, n := range []int{0, 1, nameSetSmall, nameSetSmall + 1, 3 * nameSetSmall} {
		var s nameSet
		want := map[string]bool{}
		for i := range n {
			name := fmt.Sprintf("v%d", i%(n/2+1)) // some names twice
			if got := s.has(name); got != want[name] {
				t.Fatalf("size %d: has(%q) before insert: got %v, want %v", n, name, got, want[name])
			}
			s.insert(name)
			want[name] = true
		}
		for i := range n + 2 {
			name := fmt.Sprintf("v%d", i)
			if got := s.has(name); got != want[name] {
				t.Errorf("size %d: has(%q): got %v, want %v", n, name, got, want[name])
			}
		}
	}
}
