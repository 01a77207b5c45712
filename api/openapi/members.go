package openapi

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/bramble-edge/bramble/api"
)

// members splits a JSON object into its members' raw values by name, as
// json.Unmarshal into a map[string]json.RawMessage does (the values are
// slices of obj; a repeated name keeps its last value), but without
// checking the values' grammar: it only finds where each ends, with the
// api package's scanner (api.SkipJSONValue). Load uses
// it on the generated definitions, our own valid JSON, where
// encoding/json's checking scan cost more than the rest of the build;
// TestMembersMatchesUnmarshal and FuzzMembers hold it to encoding/json.
// Input that is not a well-formed object gives an error or values that
// are not valid JSON, never a panic.
func members(obj []byte) (map[string]json.RawMessage, error) {
	i := api.SkipJSONSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, errNotObject
	}
	out := map[string]json.RawMessage{}
	i = api.SkipJSONSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return out, trailing(obj, i+1)
	}
	for {
		name, next, err := memberName(obj, i)
		if err != nil {
			return nil, err
		}
		start := api.SkipJSONSpace(obj, next)
		end := api.SkipJSONValue(obj, start)
		if end < 0 {
			return nil, errValue
		}
		out[name] = obj[start:end:end]
		i = api.SkipJSONSpace(obj, end)
		if i >= len(obj) {
			return nil, errTruncated
		}
		switch obj[i] {
		case ',':
			i = api.SkipJSONSpace(obj, i+1)
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
	errValue     = errors.New("openapi: a member's value is not a JSON value, or ends early")
)

// memberName reads a member's quoted name at i and the colon after it,
// returning the name and where its value starts (before any space).
func memberName(obj []byte, i int) (string, int, error) {
	if i >= len(obj) || obj[i] != '"' {
		return "", 0, errors.New("openapi: expected a member name")
	}
	end := api.SkipJSONValue(obj, i)
	if end < 0 {
		return "", 0, errTruncated
	}
	quoted := obj[i:end]
	name := string(quoted[1 : len(quoted)-1])
	if needsUnquote(quoted) {
		if err := json.Unmarshal(quoted, &name); err != nil {
			return "", 0, fmt.Errorf("openapi: member name: %w", err)
		}
	}
	colon := api.SkipJSONSpace(obj, end)
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

// trailing refuses anything but space after the object, as
// json.Unmarshal does.
func trailing(obj []byte, i int) error {
	if api.SkipJSONSpace(obj, i) != len(obj) {
		return errors.New("openapi: data after the JSON object")
	}
	return nil
}
