package api

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestSuspectLooksAtTheWholeToken: an exponent inside a word or an
// identifier (a UID's "4e12", a hash) is no quantity; one that ends a
// number standing alone is, however it is padded.
func TestSuspectLooksAtTheWholeToken(t *testing.T) {
	for in, want := range map[string]bool{
		`{"uid":"3f2a1b7c-4e12-4d3a-9f0e-123456789abc"}`: false,
		`{"uid":"123e4567-e89b-12d3-a456-426614174000"}`: false,
		`{"hash":"5e789c4d"}`:                            false,
		`{"image":"x@sha256:ae1234567"}`:                 false,
		`{"cpu":"1e999"}`:                                true,
		`{"cpu":" 1.5e+123 "}`:                           true,
		`{"cpu":"-e999"}`:                                true,
		`{"cpu":1e999}`:                                  true,
		`{"cpu":[1e999]}`:                                true,
		`{"cpu":"\t1e999"}`:                              true,
		`{"cpu":"1e999\n"}`:                              true,
		"{\"cpu\":\"\u00a01e999\u2003\"}":                true,
		`1e999`:                                          true,
	} {
		if got := suspect([]byte(in), true); got != want {
			t.Errorf("suspect(%q): got %v, want %v", in, got, want)
		}
	}
}

// costlyForm is what apimachinery parses as a number with a decimal
// exponent once trimmed: the only quantities whose exponent costs time.
var costlyForm = regexp.MustCompile(`^[+-]?[0-9]*\.?[0-9]*[eE][+-]?[0-9]+$`)

// FuzzSuspectCatchesEveryCostlyExponent: a quantity the guard would refuse
// for its exponent is never let past the scan, whatever surrounds it in
// the JSON a client (or json.Marshal) writes.
func FuzzSuspectCatchesEveryCostlyExponent(f *testing.F) {
	for _, s := range []string{"1e999", " 2E+1000", "\t-.5e-4321\u00a0", "3f2e1234", "1e99"} {
		f.Add(s, "cpu")
	}
	f.Fuzz(func(t *testing.T, q, key string) {
		if !costlyForm.MatchString(strings.TrimSpace(q)) || checkQuantityText(q) == nil {
			return
		}
		body, err := json.Marshal(map[string]any{key: q, "n": []string{q}})
		if err != nil {
			return
		}
		if !suspect(body, true) {
			t.Errorf("suspect(%s) = false; %q is refused by checkQuantityText", body, q)
		}
	})
}
