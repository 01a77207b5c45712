package satoken

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/server/auth"
)

// FuzzAuthenticateToken feeds the verifier bearer tokens: none may panic,
// every refusal wraps ErrUnauthenticated, and only the tokens the server
// issued (byte for byte) authenticate.
func FuzzAuthenticateToken(f *testing.F) {
	fx := newFixture(f)
	tk := fx.tokens(f, f.TempDir())
	good := map[string]bool{}
	for _, tok := range []string{issue(f, tk, true), issue(f, tk, false)} {
		good[tok] = true
		f.Add(tok)
		parts := strings.Split(tok, ".")
		f.Add(parts[0] + "." + parts[1] + ".")
		f.Add(parts[0] + ".e30." + parts[2])
	}
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add("eyJhbGciOiJIUzI1NiIsImtpZCI6IngifQ.e30.AAAA")
	f.Fuzz(func(t *testing.T, token string) {
		u, err := tk.AuthenticateToken(context.Background(), token)
		if err != nil {
			if !errors.Is(err, auth.ErrUnauthenticated) {
				t.Fatalf("%q: error %v does not wrap ErrUnauthenticated", token, err)
			}
			return
		}
		if !good[token] {
			t.Fatalf("%q authenticated as %s but was never issued", token, u.Name)
		}
	})
}
