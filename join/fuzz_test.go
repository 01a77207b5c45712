package join

import (
	"errors"
	"strings"
	"testing"
)

func FuzzParseToken(f *testing.F) {
	f.Add("K10" + testHash + "::abc123." + strings.Repeat("s", SecretLen))
	f.Add("K10" + testHash + "::abc123")
	f.Add("K10::.")
	f.Add("abc123." + strings.Repeat("s", SecretLen))
	f.Add(" K10" + strings.ToUpper(testHash) + "::zzzzzz." + strings.Repeat("9", SecretLen) + "\n")
	f.Add("K10" + testHash + "::::abc123.x")
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := ParseToken(s)
		if err != nil {
			if !errors.Is(err, ErrMalformedToken) {
				t.Fatalf("ParseToken(%q): error %v does not wrap ErrMalformedToken", s, err)
			}
			return
		}
		back, err := ParseToken(tok.String())
		if err != nil || back != tok {
			t.Fatalf("ParseToken(%q) = %+v, but its String() parses to %+v, %v", s, tok, back, err)
		}
		if len(tok.CAHash) != caHashLen || len(tok.ID) != IDLen || len(tok.Secret) != SecretLen {
			t.Fatalf("ParseToken(%q) = %+v: wrong part lengths", s, tok)
		}
	})
}

// FuzzDecodeJoinAnswer feeds what a server might answer to the decoders of
// the join client: the /cacerts body, a success body and a failure body.
func FuzzDecodeJoinAnswer(f *testing.F) {
	ca := newTestCA(f)
	f.Add([]byte(ca.pem()))
	f.Add([]byte(`{"certificate":"x","ca":"y","mqttAddresses":["mqtts://h:8883"]}`))
	f.Add([]byte(`{"kind":"Status","message":"token abc123: secret does not match","reason":"JoinTokenSecretMismatch","code":401}`))
	f.Add([]byte(`{"mqttAddresses":["tcp://h:1883"],"certificate":"a","ca":"b"}`))
	f.Add([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if cert, err := parseCAPEM(data); err == nil && !cert.IsCA {
			t.Fatalf("parseCAPEM accepted a certificate that is not a CA")
		}
		if r, err := decodeResponse(data); err == nil {
			if r.Certificate == "" || r.CA == "" {
				t.Fatalf("decodeResponse accepted %q without certificate or ca", data)
			}
			for _, a := range r.MQTTAddresses {
				if checkMQTTAddress(a) != nil {
					t.Fatalf("decodeResponse accepted MQTT address %q", a)
				}
			}
		} else if !errors.Is(err, ErrRejected) {
			t.Fatalf("decodeResponse error %v is not ErrRejected", err)
		}
		var je *Error
		if err := statusFailure(401, data); !errors.As(err, &je) || !strings.HasPrefix(je.Msg, "join: ") {
			t.Fatalf("statusFailure gave %v, want a *Error starting with \"join: \"", err)
		}
	})
}
