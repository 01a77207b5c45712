package registry

import (
	"regexp"
	"testing"
)

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestNewUIDIsAVersion4UUID(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		uid := string(newUID())
		if !uuidV4.MatchString(uid) {
			t.Fatalf("got %q, want a version 4 UUID", uid)
		}
		if seen[uid] {
			t.Fatalf("got %q twice", uid)
		}
		seen[uid] = true
	}
}
