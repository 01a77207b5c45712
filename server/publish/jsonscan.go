package publish

import (
	"bytes"
	"encoding/json"
)

// members walks the members of one JSON object in its raw bytes, without
// decoding them: statusOnly compares them as they are. It checks only what
// it must to find where each member ends; anything it cannot follow ends
// the walk with failed set (and statusOnly then says "changed").
type members struct {
	data    []byte
	pos     int
	started bool
	ended   bool
	failed  bool
}

// done reports whether the walk reached the object's closing brace.
func (m *members) done() bool { return m.ended && !m.failed }

// nextExcept is the next member whose key is not skip or, inside
// metadata (skip ""), not managedFields or resourceVersion.
func (m *members) nextExcept(skip string) (key, val []byte, ok bool) {
	for {
		key, val, ok = m.next()
		if !ok {
			return nil, nil, false
		}
		k := string(key[1 : len(key)-1])
		if skip != "" && k == skip || skip == "" && (k == "managedFields" || k == "resourceVersion") {
			continue
		}
		return key, val, true
	}
}

// next is the next member's key (with its quotes) and value.
func (m *members) next() (key, val []byte, ok bool) {
	if m.ended || m.failed || !m.separator() {
		return nil, nil, false
	}
	m.space()
	start := m.pos
	if m.pos >= len(m.data) || m.data[m.pos] != '"' || !m.skipString() {
		return m.fail()
	}
	key = m.data[start:m.pos]
	m.space()
	if !m.eat(':') {
		return m.fail()
	}
	m.space()
	start = m.pos
	if !m.skipValue() {
		return m.fail()
	}
	return key, m.data[start:m.pos], true
}

// separator moves past what comes before a member (the opening brace, or
// a comma); false at the closing brace (ended) or anything else (failed).
func (m *members) separator() bool {
	m.space()
	first := !m.started
	m.started = true
	switch {
	case first && !m.eat('{'):
		m.failed = true
		return false
	case first:
		m.space()
	case m.eat(','):
		return true
	}
	if m.eat('}') {
		m.ended = true
		return false
	}
	if !first {
		m.failed = true
		return false
	}
	return true
}

func (m *members) fail() ([]byte, []byte, bool) {
	m.failed = true
	return nil, nil, false
}

func (m *members) space() {
	for m.pos < len(m.data) && bytes.IndexByte([]byte(" \t\r\n"), m.data[m.pos]) >= 0 {
		m.pos++
	}
}

func (m *members) eat(c byte) bool {
	if m.pos < len(m.data) && m.data[m.pos] == c {
		m.pos++
		return true
	}
	return false
}

// skipString moves past the string starting at pos (its opening quote).
func (m *members) skipString() bool {
	for i := m.pos + 1; i < len(m.data); i++ {
		switch m.data[i] {
		case '\\':
			i++
		case '"':
			m.pos = i + 1
			return true
		}
	}
	return false
}

// skipValue moves past one value: a string, an object or array (to its
// matching close, strings inside skipped whole), or a literal.
func (m *members) skipValue() bool {
	if m.pos >= len(m.data) {
		return false
	}
	switch m.data[m.pos] {
	case '"':
		return m.skipString()
	case '{', '[':
		return m.skipNested()
	}
	start := m.pos
	for m.pos < len(m.data) && bytes.IndexByte([]byte(",}] \t\r\n"), m.data[m.pos]) < 0 {
		m.pos++
	}
	return m.pos > start
}

func (m *members) skipNested() bool {
	depth := 0
	for m.pos < len(m.data) {
		switch m.data[m.pos] {
		case '"':
			if !m.skipString() {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		m.pos++
		if depth == 0 {
			return true
		}
	}
	return false
}

// unbound reports, from a stored pod's bytes, that decoding them would give
// a pod with no spec.nodeName: valid JSON whose top-level spec members
// (every one, as encoding/json reads a repeated name) hold no name a
// case-insensitive decoder would read as nodeName. The publisher then needs
// nothing else from the pod: a pod created and bound at once often reaches
// it after the cache has the binding, and decoding the unbound version
// cost 2 % of the server's CPU while a 1,000-pod Deployment was scheduled.
// Anything else (a nodeName, a spec it cannot follow) gives false: decode.
func unbound(data []byte) bool {
	top := members{data: data}
	for {
		key, val, ok := top.next()
		if !ok {
			// valid last, as it costs most: the decoder's error, as before
			return top.done() && json.Valid(data)
		}
		if !mayName(key, "spec") || bytes.Equal(val, []byte("null")) {
			continue
		}
		spec := members{data: val}
		for {
			k, _, ok := spec.next()
			if !ok {
				break
			}
			if mayName(k, "nodeName") {
				return false
			}
		}
		if !spec.done() {
			return false
		}
	}
}

// mayName reports whether a member's key (with its quotes) may be read as
// name by encoding/json, which matches names case-insensitively, folding
// some non-ASCII letters too: an escape or a non-ASCII byte counts as may.
func mayName(key []byte, name string) bool {
	for _, c := range key {
		if c == '\\' || c >= 0x80 {
			return true
		}
	}
	return bytes.EqualFold(key[1:len(key)-1], []byte(name))
}
