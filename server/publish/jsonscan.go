package publish

import "bytes"

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
