package join

import (
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/internal/idrule/idruletest"
)

// hexHashPattern is the rule isHexHash implements without a regexp.
const hexHashPattern = `^[0-9a-f]{64}$`

func TestIsHexHashMatchesTheRegexp(t *testing.T) {
	for _, s := range append(idruletest.Seeds(), strings.Repeat("0123456789abcdef", 4),
		strings.Repeat("a", 63)+"\n", strings.Repeat("a", 64)+"\n", strings.Repeat("a", 62)+"é") {
		idruletest.Same(t, "isHexHash", isHexHash, hexHashPattern, s)
	}
}

func FuzzIsHexHash(f *testing.F) { idruletest.Fuzz(f, "isHexHash", isHexHash, hexHashPattern) }
