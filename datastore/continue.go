package datastore

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
)

// continueToken is what a List continue string carries: the revision the
// first page was read at and the last key returned. On the wire it is
// base64url (no padding) of its JSON; callers treat it as opaque.
type continueToken struct {
	Rev  int64  `json:"rev"`
	Last string `json:"last"`
}

// maxContinueLen bounds a token before any decoding work: a key is at most
// maxKeyLen bytes, and JSON escaping can at most sextuple it.
const maxContinueLen = 4 * (6*maxKeyLen + 64) / 3

func encodeContinue(rev int64, last string) string {
	raw, err := json.Marshal(continueToken{Rev: rev, Last: last})
	if err != nil {
		panic(fmt.Sprintf("encode continue token: %v", err)) // a struct of an int and a string always encodes
	}
	return encodeB64(raw)
}

func encodeB64(raw []byte) string {
	return base64.RawURLEncoding.EncodeToString(raw)
}

// decodeContinue parses a token that arrived from a client. Every failure
// wraps ErrInvalid and says what is wrong.
func decodeContinue(s string) (continueToken, error) {
	var tok continueToken
	if len(s) > maxContinueLen {
		return tok, fmt.Errorf("continue token is %d bytes, longer than %d: %w", len(s), maxContinueLen, ErrInvalid)
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return tok, fmt.Errorf("continue token is not unpadded base64url (%v): %w", err, ErrInvalid)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tok); err != nil {
		return tok, fmt.Errorf("continue token is not valid JSON (%v): %w", err, ErrInvalid)
	}
	if _, err := dec.Token(); err != io.EOF {
		return tok, fmt.Errorf("continue token has data after its JSON object: %w", ErrInvalid)
	}
	if tok.Rev <= 0 {
		return tok, fmt.Errorf("continue token revision is %d, want > 0: %w", tok.Rev, ErrInvalid)
	}
	if err := validateKey(tok.Last); err != nil {
		return tok, fmt.Errorf("continue token last key: %w", err)
	}
	return tok, nil
}
