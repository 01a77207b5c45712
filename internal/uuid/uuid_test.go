package uuid

import (
	"regexp"
	"testing"
)

var v4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestV4(t *testing.T) {
	var b [16]byte
	for i := range b {
		b[i] = byte(0xf0 + i)
	}
	got := V4(b)
	if want := "f0f1f2f3-f4f5-46f7-b8f9-fafbfcfdfeff"; got != want {
		t.Errorf("V4: got %s, want %s", got, want)
	}
	for _, b := range [][16]byte{{}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}} {
		if s := V4(b); !v4.MatchString(s) {
			t.Errorf("V4(%x) = %s: not a version 4 UUID", b, s)
		}
	}
}
