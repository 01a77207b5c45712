package runtime

import (
	"testing"

	"github.com/bramble-edge/bramble/internal/idrule/idruletest"
)

// idPattern is the rule validID implements without a regexp.
const idPattern = `^[A-Za-z0-9][A-Za-z0-9_.-]{0,75}$`

func TestValidIDMatchesTheRegexp(t *testing.T) {
	for _, s := range append(idruletest.Seeds(), "pod-5f2c1e0e-2b7d-4c1e-9c1e-1b2c3d4e5f60") {
		idruletest.Same(t, "validID", validID, idPattern, s)
	}
}

func FuzzValidID(f *testing.F) { idruletest.Fuzz(f, "validID", validID, idPattern) }
