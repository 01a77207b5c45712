package idrule_test

import (
	"testing"

	"github.com/bramble-edge/bramble/internal/idrule"
	"github.com/bramble-edge/bramble/internal/idrule/idruletest"
)

// The three classes and the edges of the lengths, against the
// expressions they stand for.
var rules = []struct {
	name    string
	rule    func(string) bool
	pattern string
}{
	{"word 1-64", func(s string) bool { return idrule.Match(s, 1, 64, idrule.Word, idrule.Word) }, `^[A-Za-z0-9._-]{1,64}$`},
	{"alnum then word 1-76", func(s string) bool { return idrule.Match(s, 1, 76, idrule.Alnum, idrule.Word) }, `^[A-Za-z0-9][A-Za-z0-9_.-]{0,75}$`},
	{"hex 64", func(s string) bool { return idrule.Match(s, 64, 64, idrule.LowerHex, idrule.LowerHex) }, `^[0-9a-f]{64}$`},
	{"alnum 0-3", func(s string) bool { return idrule.Match(s, 0, 3, idrule.Alnum, idrule.Alnum) }, `^[A-Za-z0-9]{0,3}$`},
}

func TestMatchIsTheExpression(t *testing.T) {
	for _, r := range rules {
		for _, s := range append(idruletest.Seeds(), "abc", "abcd", "ab-") {
			idruletest.Same(t, r.name, r.rule, r.pattern, s)
		}
	}
}
