package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// members splits a JSON object into its members' raw values by name, as
// json.Unmarshal into a map[string]json.RawMessage does (the values are
// slices of obj; a repeated name keeps its last value), but without
// checking the values' grammar: it only finds where each ends. Load uses
// it on the generated definitions, our own valid JSON, where
// encoding/json's checking scan cost more than the rest of the build;
// TestMembersMatchesUnmarshal and FuzzMembers hold it to encoding/json.
// Input that is not a well-formed object gives an error or values that
// are not valid JSON, never a panic.
func members(obj []byte) (map[string]json.RawMessage, error) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, errNotObject
	}
	out := map[string]json.RawMessage{}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return out, trailing(obj, i+1)
	}
	for {
		name, next, err := memberName(obj, i)
		if err != nil {
			return nil, err
		}
		start := skipSpace(obj, next)
		end, err := valueEnd(obj, start)
		if err != nil {
			return nil, err
		}
		out[name] = obj[start:end:end]
		i = skipSpace(obj, end)
		if i >= len(obj) {
			return nil, errTruncated
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return out, trailing(obj, i+1)
		default:
			return nil, fmt.Errorf("openapi: unexpected %q after a member's value", obj[i])
		}
	}
}

var (
	errNotObject = errors.New("openapi: not a JSON object")
	errTruncated = errors.New("openapi: JSON object ends early")
)

// memberName reads a member's quoted name at i and the colon after it,
// returning the name and where its value starts (before any space).
func memberName(obj []byte, i int) (string, int, error) {
	if i >= len(obj) || obj[i] != '"' {
		return "", 0, errors.New("openapi: expected a member name")
	}
	end, err := stringEnd(obj, i)
	if err != nil {
		return "", 0, err
	}
	quoted := obj[i:end]
	name := string(quoted[1 : len(quoted)-1])
	if needsUnquote(quoted) {
		if err := json.Unmarshal(quoted, &name); err != nil {
			return "", 0, fmt.Errorf("openapi: member name: %w", err)
		}
	}
	colon := skipSpace(obj, end)
	if colon >= len(obj) || obj[colon] != ':' {
		return "", 0, errors.New("openapi: expected a colon after a member name")
	}
	return name, colon + 1, nil
}

// needsUnquote: the quoted name has escapes or bytes that are not ASCII,
// which encoding/json decodes (or replaces, when not UTF-8).
func needsUnquote(quoted []byte) bool {
	for _, c := range quoted {
		if c == '\\' || c >= 0x80 || c < 0x20 {
			return true
		}
	}
	return false
}

// valueEnd is where the value starting at i ends.
func valueEnd(obj []byte, i int) (int, error) {
	if i >= len(obj) {
		return 0, errTruncated
	}
	switch obj[i] {
	case '"':
		return stringEnd(obj, i)
	case '{', '[':
		return nestedEnd(obj, i)
	}
	j := i
	for j < len(obj) && inLiteral(obj[j]) {
		j++
	}
	if j == i {
		return 0, fmt.Errorf("openapi: unexpected %q where a value starts", obj[i])
	}
	return j, nil
}

// inLiteral: c may be part of a number, true, false or null.
func inLiteral(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'E'
}

// nestedEnd is where the object or array starting at i ends: after the
// bracket that closes it, counting brackets outside strings.
func nestedEnd(obj []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(obj); j++ {
		switch obj[j] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return j + 1, nil
			}
		case '"':
			end, err := stringEnd(obj, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
		}
	}
	return 0, errTruncated
}

// stringEnd is where the string whose opening quote is at i ends: after
// the first quote not escaped by an odd number of backslashes.
func stringEnd(obj []byte, i int) (int, error) {
	for j := i + 1; ; {
		k := bytes.IndexByte(obj[j:], '"')
		if k < 0 {
			return 0, errTruncated
		}
		q := j + k
		backslashes := 0
		for b := q - 1; b > i && obj[b] == '\\'; b-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

func skipSpace(obj []byte, i int) int {
	for i < len(obj) {
		switch obj[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// trailing refuses anything but space after the object, as
// json.Unmarshal does.
func trailing(obj []byte, i int) error {
	if skipSpace(obj, i) != len(obj) {
		return errors.New("openapi: data after the JSON object")
	}
	return nil
}
