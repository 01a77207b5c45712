package datastore

import (
	"errors"
	"strings"
	"testing"
)

func TestContinueRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		rev  int64
		last string
	}{{1, "/a"}, {1 << 40, "/registry/pods/default/web-0"}, {7, "/ünïcode/\"quoted\"\\"}} {
		tok, err := decodeContinue(encodeContinue(tc.rev, tc.last))
		if err != nil || tok.Rev != tc.rev || tok.Last != tc.last {
			t.Errorf("round trip of (%d, %q): got (%d, %q), %v", tc.rev, tc.last, tok.Rev, tok.Last, err)
		}
	}
}

func TestDecodeContinueRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":          "",
		"not base64":     "***",
		"padded":         encodeContinue(5, "/ab") + "=",
		"not json":       "bm90IGpzb24",
		"zero revision":  encodeRaw(`{"rev":0,"last":"/a"}`),
		"negative":       encodeRaw(`{"rev":-3,"last":"/a"}`),
		"no key":         encodeRaw(`{"rev":3}`),
		"unknown field":  encodeRaw(`{"rev":3,"last":"/a","x":1}`),
		"trailing data":  encodeRaw(`{"rev":3,"last":"/a"}}`),
		"two objects":    encodeRaw(`{"rev":3,"last":"/a"}{}`),
		"NUL in key":     encodeRaw(`{"rev":3,"last":"/a\u0000"}`),
		"huge":           strings.Repeat("A", maxContinueLen+1),
		"rev not number": encodeRaw(`{"rev":"3","last":"/a"}`),
	} {
		if _, err := decodeContinue(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", name, err)
		}
	}
}

func encodeRaw(s string) string {
	return encodeB64([]byte(s))
}

func FuzzDecodeContinue(f *testing.F) {
	f.Add(encodeContinue(1, "/a"))
	f.Add(encodeContinue(99, "/registry/pods/ns/name"))
	f.Add(encodeRaw(`{"rev":3,"last":"/a"}}`))
	f.Add(encodeRaw(`{"rev":1e3,"last":""}`))
	f.Add("")
	f.Add("====")
	f.Fuzz(func(t *testing.T, in string) {
		tok, err := decodeContinue(in)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("decodeContinue(%q): error %v does not wrap ErrInvalid", in, err)
			}
			return
		}
		if tok.Rev <= 0 || validateKey(tok.Last) != nil {
			t.Fatalf("decodeContinue(%q) accepted %+v", in, tok)
		}
		again, err := decodeContinue(encodeContinue(tok.Rev, tok.Last))
		if err != nil || again != tok {
			t.Fatalf("re-encoding %+v: got %+v, %v", tok, again, err)
		}
	})
}
