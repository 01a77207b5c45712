package mqtt

import (
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// scanner reads the plain subset of JSON that agents' encoding/json
// writes, for the hand-written pod status decoder (status_fast.go). It
// never decides that input is wrong: whatever it does not take exactly as
// the strict decoder would (an escaped string, a float, a name it does not
// know or a repeated one, anything malformed) makes it give up, and the
// strict decoder reads the input and gives its answer, errors included.
type scanner struct {
	data []byte
	i    int
	// hashes holds a hash of each pod status read, as written (status_fast.go).
	hashes []uint64
	// recent holds the last few strings word made, reused when the same
	// bytes come again (a batch's namespace and host IP, a pod's IP twice,
	// its image and the image ID of its sibling).
	recent [8]string
	next   int
}

func (s *scanner) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// consume skips white space and takes c if it comes next.
func (s *scanner) consume(c byte) bool {
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// literal skips white space and takes word (null, true, false) if it
// comes next; what follows it is the caller's delimiter check.
func (s *scanner) literal(word string) bool {
	s.ws()
	if len(s.data)-s.i >= len(word) && string(s.data[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// rawString takes a string with no escapes, no control characters and
// valid UTF-8 (what the strict decoder would copy byte for byte).
func (s *scanner) rawString() ([]byte, bool) {
	if !s.consume('"') {
		return nil, false
	}
	start, ascii := s.i, true
	for ; s.i < len(s.data); s.i++ {
		switch c := s.data[s.i]; {
		case c == '"':
			b := s.data[start:s.i]
			s.i++
			return b, ascii || utf8.Valid(b)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// str decodes a string into any string type.
func str[T ~string](s *scanner, dst *T) bool {
	b, ok := s.rawString()
	*dst = T(b)
	return ok
}

// word decodes a string that often repeats within a report into any
// string type: the values Kubernetes defines for phases, conditions and
// QoS classes are never copied, and a string equal to one of the last few
// word made is shared, not made again. Equal either way: a Go string is
// its bytes.
func word[T ~string](s *scanner, dst *T) bool {
	b, ok := s.rawString()
	if !ok {
		return false
	}
	if v, ok := vocabulary(b); ok {
		*dst = T(v)
		return true
	}
	for _, r := range s.recent {
		if len(r) == len(b) && r == string(b) {
			*dst = T(r)
			return true
		}
	}
	v := string(b)
	s.recent[s.next] = v
	s.next = (s.next + 1) % len(s.recent)
	*dst = T(v)
	return true
}

// vocabulary is b as a constant string when it is one of the words pod
// statuses are made of (a switch on string(b) does not copy b).
func vocabulary(b []byte) (string, bool) {
	switch string(b) {
	case "":
		return "", true
	case "Pending":
		return "Pending", true
	case "Running":
		return "Running", true
	case "Succeeded":
		return "Succeeded", true
	case "Failed":
		return "Failed", true
	case "Unknown":
		return "Unknown", true
	case "True":
		return "True", true
	case "False":
		return "False", true
	case "Ready":
		return "Ready", true
	case "Initialized":
		return "Initialized", true
	case "ContainersReady":
		return "ContainersReady", true
	case "PodScheduled":
		return "PodScheduled", true
	case "PodReadyToStartContainers":
		return "PodReadyToStartContainers", true
	case "PodCompleted":
		return "PodCompleted", true
	case "Completed":
		return "Completed", true
	case "ContainerCreating":
		return "ContainerCreating", true
	case "BestEffort":
		return "BestEffort", true
	case "Burstable":
		return "Burstable", true
	case "Guaranteed":
		return "Guaranteed", true
	}
	return "", false
}

// integer takes an integer literal (no fraction or exponent, no leading
// zero) that fits in a signed integer of bits.
func (s *scanner) integer(bits uint) (int64, bool) {
	s.ws()
	neg := s.i < len(s.data) && s.data[s.i] == '-'
	if neg {
		s.i++
	}
	start, limit := s.i, uint64(1)<<(bits-1)
	var v uint64
	for ; s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9'; s.i++ {
		if s.i-start == 18 { // longer ones are left to the strict decoder
			return 0, false
		}
		v = v*10 + uint64(s.data[s.i]-'0')
	}
	if n := s.i - start; n == 0 || n > 1 && s.data[start] == '0' || v > limit || !neg && v == limit {
		return 0, false
	}
	if s.i < len(s.data) && (s.data[s.i] == '.' || s.data[s.i] == 'e' || s.data[s.i] == 'E') {
		return 0, false
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

func (s *scanner) int32(dst *int32) bool {
	v, ok := s.integer(32)
	*dst = int32(v)
	return ok
}

func (s *scanner) bool(dst *bool) bool {
	switch {
	case s.literal("true"):
		*dst = true
	case s.literal("false"):
		*dst = false
	default:
		return false
	}
	return true
}

// time decodes a metav1.Time as its UnmarshalJSON does: RFC 3339, local.
func (s *scanner) time(dst *metav1.Time) bool {
	b, ok := s.rawString()
	if !ok {
		return false
	}
	t, err := time.Parse(time.RFC3339, string(b))
	dst.Time = t.Local()
	return err == nil
}

// object decodes an object member by member: each name must be one of
// names, at most once, and member decodes the value of names[i]. A null
// value is skipped: into a fresh value, the strict decoder's null leaves
// every field type used here at its zero value.
func (s *scanner) object(names []string, member func(i int) bool) bool {
	if !s.consume('{') {
		return false
	}
	if s.consume('}') {
		return true
	}
	var seen uint64
	for {
		key, ok := s.rawString()
		f := nameIndex(names, key)
		if !ok || f < 0 || seen&(1<<f) != 0 || !s.consume(':') {
			return false
		}
		seen |= 1 << f
		if !s.literal("null") && !member(f) {
			return false
		}
		if !s.consume(',') {
			return s.consume('}')
		}
	}
}

func nameIndex(names []string, key []byte) int {
	for i, n := range names {
		if n == string(key) {
			return i
		}
	}
	return -1
}

// slice decodes an array into a fresh slice (empty, not nil, for [] as
// the strict decoder gives); elem decodes one element, never null.
func slice[T any](s *scanner, dst *[]T, elem func(*T) bool) bool {
	return sliceCap(s, dst, 0, elem)
}

// sliceCap is slice with room for n elements made at the first one.
func sliceCap[T any](s *scanner, dst *[]T, n int, elem func(*T) bool) bool {
	if !s.consume('[') {
		return false
	}
	out := []T{}
	if s.ws(); s.i < len(s.data) && s.data[s.i] != ']' {
		out = make([]T, 0, n)
	}
	ok := s.consume(']')
	for !ok {
		var zero T
		out = append(out, zero)
		if !elem(&out[len(out)-1]) {
			return false
		}
		if !s.consume(',') {
			ok = s.consume(']')
			break
		}
	}
	*dst = out
	return ok
}

// end reports whether only white space is left.
func (s *scanner) end() bool {
	s.ws()
	return s.i == len(s.data)
}
