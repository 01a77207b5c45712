package api

import "bytes"

// topLevelSpans finds where the value of each top-level section of a JSON
// object starts and ends in data ([start, end), both 0 when the section is
// absent). ok is false whenever the reading could differ from the JSON
// decoder's: malformed input, a section named twice, or a top-level key
// holding an escape (which might spell a section's name). The decoder
// still checks everything that is not taken from a previous revision, and
// a section is only taken when its bytes equal a section of a value that
// decoded whole, so a wrong span cannot slip a bad value in.
func topLevelSpans(data []byte) (spans [len(sectionNames)][2]int, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return spans, false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return spans, true
	}
	for i < len(data) {
		key, next, ok := readKey(data, i)
		if !ok {
			return spans, false
		}
		start := skipSpace(data, next)
		end := skipValue(data, start)
		if end < 0 {
			return spans, false
		}
		if !noteSpan(&spans, key, start, end) {
			return spans, false
		}
		var last bool
		if i, last, ok = afterMember(data, end); !ok || last {
			return spans, ok
		}
	}
	return spans, false
}

// afterMember reads what follows a member's value ending at i: a comma
// (next is the next key) or the object's end, which must end data too.
func afterMember(data []byte, i int) (next int, last, ok bool) {
	i = skipSpace(data, i)
	switch {
	case i >= len(data):
		return 0, false, false
	case data[i] == '}':
		return 0, true, skipSpace(data, i+1) == len(data)
	case data[i] == ',':
		return skipSpace(data, i+1), false, true
	}
	return 0, false, false
}

// noteSpan records a section's span; false when it was already seen.
func noteSpan(spans *[len(sectionNames)][2]int, key []byte, start, end int) bool {
	for s, name := range sectionNames {
		if string(key) != name {
			continue
		}
		if spans[s][1] != 0 {
			return false
		}
		spans[s] = [2]int{start, end}
	}
	return true
}

// readKey reads `"key" :` at i and returns the key and where its value
// starts; keys holding an escape are refused.
func readKey(data []byte, i int) (key []byte, next int, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return nil, 0, false
	}
	j := i + 1
	for j < len(data) && data[j] != '"' {
		if data[j] == '\\' {
			return nil, 0, false
		}
		j++
	}
	k := skipSpace(data, j+1)
	if j >= len(data) || k >= len(data) || data[k] != ':' {
		return nil, 0, false
	}
	return data[i+1 : j], k + 1, true
}

// skipValue returns where the JSON value starting at i ends, or -1. It
// checks nesting and strings, not the grammar of scalars (a scalar is a
// run of the bytes numbers, true, false and null are made of).
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		return skipNested(data, i)
	}
	j := i
	for j < len(data) && inLiteral(data[j]) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// skipNested skips an object or array, strings inside included.
func skipNested(data []byte, i int) int {
	var buf [32]byte
	stack := buf[:0]
	for j := i; j < len(data); j++ {
		switch c := data[j]; c {
		case '"':
			if j = skipString(data, j); j < 0 {
				return -1
			}
			j--
		case '{', '[':
			stack = append(stack, c)
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c-2 { // '{'+2 == '}', '['+2 == ']'
				return -1
			}
			if stack = stack[:len(stack)-1]; len(stack) == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// skipString returns where the string starting at i ends, or -1: after
// the first quote not escaped by an odd number of backslashes (found with
// bytes.IndexByte, which is several times faster than a byte loop on long
// strings).
func skipString(data []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		backslashes := 0
		for b := q - 1; b > i && data[b] == '\\'; b-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// SkipJSONValue returns where the JSON value starting at i in data ends,
// or -1. It checks nesting and strings, not the grammar of scalars: it is
// for finding values in JSON that is checked elsewhere or known good
// (the stored sections here, the generated OpenAPI definitions).
func SkipJSONValue(data []byte, i int) int { return skipValue(data, i) }

// SkipJSONSpace returns the first index at or after i that is not JSON
// white space.
func SkipJSONSpace(data []byte, i int) int { return skipSpace(data, i) }

// inLiteral: c may be part of a number, true, false or null.
func inLiteral(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'E'
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}
