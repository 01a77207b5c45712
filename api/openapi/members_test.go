package openapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"reflect"
	"testing"
)

func inflated(tb testing.TB) []byte {
	tb.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(generated))
	if err != nil {
		tb.Fatal(err)
	}
	js, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return js
}

// unmarshalMembers is what members stands in for.
func unmarshalMembers(js []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	err := json.Unmarshal(js, &m)
	return m, err
}

// TestMembersMatchesUnmarshal splits the generated definitions both ways.
func TestMembersMatchesUnmarshal(t *testing.T) {
	js := inflated(t)
	if got := inflatedSize(generated); got != len(js) {
		t.Fatalf("inflatedSize: got %d, want %d", got, len(js))
	}
	wantDoc, err := unmarshalMembers(js)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := members(js)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"definitions", "v2"} {
		want, err := unmarshalMembers(wantDoc[key])
		if err != nil {
			t.Fatal(err)
		}
		got, err := members(doc[key])
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(want) == 0 {
			t.Fatalf("%s: got %d members, want %d", key, len(got), len(want))
		}
		for name, w := range want {
			if !bytes.Equal(got[name], w) {
				t.Fatalf("%s %s: got %.80s, want %.80s", key, name, got[name], w)
			}
		}
	}
}

func TestMembers(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    map[string]string
		wantErr bool
	}{
		{in: ` { } `, want: map[string]string{}},
		{in: `{"a":1,"b" : "x\"}" , "c":[{"d":"]"}],"e":{"f":null},"a":true}`,
			want: map[string]string{"a": `true`, "b": `"x\"}"`, "c": `[{"d":"]"}]`, "e": `{"f":null}`}},
		{in: `{"\u0061\\":"\\","é":-1.5e3}`, want: map[string]string{`a\`: `"\\"`, "é": `-1.5e3`}},
		{in: `[]`, wantErr: true},
		{in: `{"a":1} x`, wantErr: true},
		{in: `{"a":1`, wantErr: true},
		{in: `{"a":{"b":1}`, wantErr: true},
		{in: `{"a":"x`, wantErr: true},
		{in: `{"a" 1}`, wantErr: true},
		{in: `{"a":,}`, wantErr: true},
		{in: `{a:1}`, wantErr: true},
		{in: `{"a":1;"b":2}`, wantErr: true},
	} {
		got, err := members([]byte(tc.in))
		if tc.wantErr {
			if err == nil {
				t.Errorf("%s: got %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		gotS := map[string]string{}
		for k, v := range got {
			gotS[k] = string(v)
		}
		if !reflect.DeepEqual(gotS, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.in, gotS, tc.want)
		}
	}
}

// FuzzMembers holds members to json.Unmarshal on valid objects, and to
// not panicking on anything.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[1,{"c":"\""}]}`, `{"a\\":"\\\\"}`, `{"x":{"y":"}"}}`, `[1]`, `{"a":tru}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := members(in)
		want, wantErr := unmarshalMembers(in)
		if wantErr != nil || want == nil {
			return // members checks less than encoding/json
		}
		if err != nil {
			t.Fatalf("%q: %v, json.Unmarshal took it", in, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: got %d members, want %d", in, len(got), len(want))
		}
		for name, w := range want {
			if !bytes.Equal(got[name], w) {
				t.Fatalf("%q member %q: got %q, want %q", in, name, got[name], w)
			}
		}
	})
}

func BenchmarkLoad(b *testing.B) {
	js := inflated(b)
	b.Run("members", func(b *testing.B) {
		for range b.N {
			doc, _ := members(js)
			if _, err := members(doc["definitions"]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unmarshal", func(b *testing.B) {
		for range b.N {
			var doc struct {
				Definitions map[string]json.RawMessage `json:"definitions"`
			}
			if err := json.Unmarshal(js, &doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Load", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := Load(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
