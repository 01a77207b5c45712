package encryption

import (
	"testing"

	"github.com/bramble-edge/bramble/internal/idrule/idruletest"
)

// keyIDPattern is the rule validKeyID implements without a regexp.
const keyIDPattern = `^[A-Za-z0-9._-]{1,64}$`

func TestValidKeyIDMatchesTheRegexp(t *testing.T) {
	for _, s := range append(idruletest.Seeds(), "key-2026.11_a") {
		idruletest.Same(t, "validKeyID", validKeyID, keyIDPattern, s)
	}
}

func FuzzValidKeyID(f *testing.F) { idruletest.Fuzz(f, "validKeyID", validKeyID, keyIDPattern) }
