package join

import (
	"errors"
	"strings"
	"testing"
)

const testHash = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestParseToken(t *testing.T) {
	secret := strings.Repeat("s", SecretLen)
	good := "K10" + testHash + "::abc123." + secret
	tests := []struct {
		name, in, wantErr string
	}{
		{"good", good, ""},
		{"surrounding space", "  " + good + "\n", ""},
		{"upper-case hash", "K10" + strings.ToUpper(testHash) + "::abc123." + secret, ""},
		{"empty", "", "empty"},
		{"no prefix", testHash + "::abc123." + secret, `must start with "K10"`},
		{"lower-case prefix", "k10" + testHash + "::abc123." + secret, `must start with "K10"`},
		{"bare user token", "abc123." + secret, `must start with "K10"`},
		{"no separator", "K10" + testHash + "abc123." + secret, `no "::" after the CA hash`},
		{"single colon", "K10" + testHash + ":abc123." + secret, `no "::" after the CA hash`},
		{"short hash", "K10" + testHash[:63] + "::abc123." + secret, "CA hash has 63 characters, want 64"},
		{"long hash", "K10" + testHash + "0::abc123." + secret, "CA hash has 65 characters, want 64"},
		{"non-hex hash", "K10" + testHash[:10] + "g" + testHash[11:] + "::abc123." + secret, `CA hash character 11 ('g') is not a hex digit`},
		{"no dot", "K10" + testHash + "::abc123" + secret, "no '.' between id and secret"},
		{"short id", "K10" + testHash + "::abc12." + secret, "id has 5 characters, want 6"},
		{"upper-case id", "K10" + testHash + "::abC123." + secret, `id character 3 ('C') is not a lowercase letter or digit`},
		{"short secret", "K10" + testHash + "::abc123." + secret[1:], "secret has 31 characters, want 32"},
		{"bad secret char", "K10" + testHash + "::abc123." + secret[:5] + "-" + secret[6:], "secret character 6 is not a lowercase letter or digit"},
		{"second dot", "K10" + testHash + "::abc123." + secret[:31] + ".", "secret character 32 is not"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := ParseToken(tc.in)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				if tok.CAHash != testHash || tok.ID != "abc123" || tok.Secret != secret {
					t.Fatalf("got %+v, want hash %s id abc123 and the secret", tok, testHash)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
			}
			if !errors.Is(err, ErrMalformedToken) {
				t.Errorf("got %v, want it to wrap ErrMalformedToken", err)
			}
		})
	}
}

func TestNewTokenRoundTrip(t *testing.T) {
	tok, err := NewToken(strings.ToUpper(testHash))
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseToken(tok.String())
	if err != nil {
		t.Fatalf("parse %q: %v", tok.Redacted(), err)
	}
	if back != tok || back.CAHash != testHash {
		t.Fatalf("got %+v, want %+v with a lower-case hash", back, tok)
	}
	if r := tok.Redacted(); strings.Contains(r, tok.Secret) || !strings.HasPrefix(r, "K10"+testHash+"::"+tok.ID+".") {
		t.Errorf("Redacted() = %q: want the hash and id but not the secret", r)
	}
	other, _ := NewToken(testHash)
	if other.ID == tok.ID && other.Secret == tok.Secret {
		t.Errorf("two NewToken calls drew the same id and secret %q", tok.ID)
	}
	if _, err := NewToken("abc"); !errors.Is(err, ErrMalformedToken) {
		t.Errorf("NewToken with a short hash: got %v, want ErrMalformedToken", err)
	}
}

func TestRandomStringAlphabet(t *testing.T) {
	seen := map[rune]bool{}
	for range 200 {
		s, err := RandomString(SecretLen)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range s {
			if !strings.ContainsRune(tokenAlphabet, c) {
				t.Fatalf("got character %q in %q, want only %s", c, s, tokenAlphabet)
			}
			seen[c] = true
		}
	}
	if len(seen) != len(tokenAlphabet) {
		t.Errorf("6400 characters drawn used %d distinct ones, want all %d", len(seen), len(tokenAlphabet))
	}
}

func TestValidateNodeName(t *testing.T) {
	for _, ok := range []string{"pi-1", "rack2.pi-14", "a"} {
		if err := ValidateNodeName(ok); err != nil {
			t.Errorf("ValidateNodeName(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "Pi-1", "pi_1", "-pi", "pi/1", "pi+", "pi#", strings.Repeat("a", 254)} {
		err := ValidateNodeName(bad)
		if !errors.Is(err, ErrInvalidNodeName) || !strings.HasPrefix(err.Error(), "node name") {
			t.Errorf("ValidateNodeName(%q) = %v, want an ErrInvalidNodeName naming the node name", bad, err)
		}
	}
}
