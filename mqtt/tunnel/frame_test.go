package tunnel

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestFramesRoundTrip(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	big := bytes.Repeat([]byte("x"), MaxData)
	for _, f := range []struct {
		ch Channel
		p  []byte
	}{{Stdin, []byte("hi")}, {Stdout, big}, {CloseStdin, nil}} {
		if err := w.Write(f.ch, f.p); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(&b)
	for _, want := range []struct {
		ch Channel
		n  int
	}{{Stdin, 2}, {Stdout, MaxData}, {CloseStdin, 0}} {
		ch, p, err := r.Read()
		if err != nil || ch != want.ch || len(p) != want.n {
			t.Fatalf("got %d, %d bytes, %v; want %d, %d bytes", ch, len(p), err, want.ch, want.n)
		}
	}
	if _, _, err := r.Read(); err != io.EOF {
		t.Fatalf("got %v at the end, want io.EOF", err)
	}
}

func TestReaderRejects(t *testing.T) {
	for in, want := range map[string]string{
		"\x09\x00\x00\x00\x00":    "channel 9",
		"\x01\x00\x01\x00\x01":    "65537 bytes",
		"\x01\x00\x00\x00\x05abc": "cut short",
		"\x01\x00":                "in its header",
	} {
		_, _, err := NewReader(strings.NewReader(in)).Read()
		if !errors.Is(err, ErrFrame) || !strings.Contains(err.Error(), want) {
			t.Errorf("Read(%q): got %v, want ErrFrame with %q", in, err, want)
		}
	}
	if err := NewWriter(io.Discard).Write(Stdout, make([]byte, MaxData+1)); err == nil {
		t.Error("WriteFrame of MaxData+1 bytes: got no error")
	}
}

func TestDecodeResult(t *testing.T) {
	if r, err := DecodeResult([]byte(`{"exitCode":3}`)); err != nil || r.ExitCode != 3 {
		t.Fatalf("got %+v, %v; want exit code 3", r, err)
	}
	if _, err := DecodeResult([]byte(`{"error":"x","code":200}`)); err == nil {
		t.Fatal("an error with code 200: got no error")
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("\x01\x00\x00\x00\x02hi\x03\x00\x00\x00\x0e{\"exitCode\":3}"))
	f.Add([]byte("\x04\x00\x00\x00\x1b{\"width\":80,\"height\":24}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(bytes.NewReader(in))
		for {
			ch, p, err := r.Read()
			if err != nil {
				return
			}
			if len(p) > MaxData || ch > lastChannel {
				t.Fatalf("accepted channel %d with %d bytes", ch, len(p))
			}
			switch ch {
			case Status:
				if res, err := DecodeResult(p); err == nil && res.Error != "" && (res.Code < 400 || res.Code > 599) {
					t.Fatalf("accepted %+v", res)
				}
			case Resize:
				_, _ = DecodeSize(p)
			}
		}
	})
}
