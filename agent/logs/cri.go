// Package logs is the agent's side of kubectl logs: it answers the server's
// log requests on the node's rpc topic (mqtt.RPCRequest) by reading the
// container's CRI log files (agent/runtime/logdriver writes them, rotated
// as path, path.1, path.2 ...) and streaming the text back as mqtt.RPCChunks
// under the contract's credit window.
package logs

import (
	"bytes"
	"time"
)

// maxEntry bounds one log entry (partial lines joined); the rest of a
// longer one is dropped.
const maxEntry = 1 << 20

// entry is one log line as kubectl shows it: partial CRI lines joined.
type entry struct {
	ts   time.Time // zero for a line that is not in CRI form
	text []byte
}

// criLine is one parsed CRI line: "<RFC3339Nano> <stream> <F|P> <text>".
type criLine struct {
	ts      time.Time
	stream  string
	partial bool
	text    []byte
}

// parseCRI splits a CRI line (without its newline). ok is false when the
// line is not in that form.
func parseCRI(line []byte) (l criLine, ok bool) {
	tsEnd := bytes.IndexByte(line, ' ')
	if tsEnd < 0 {
		return l, false
	}
	ts, err := time.Parse(time.RFC3339Nano, string(line[:tsEnd]))
	if err != nil {
		return l, false
	}
	rest := line[tsEnd+1:]
	stEnd := bytes.IndexByte(rest, ' ')
	if stEnd < 0 {
		return l, false
	}
	l.ts, l.stream = ts, string(rest[:stEnd])
	rest = rest[stEnd+1:]
	if len(rest) < 1 || (rest[0] != 'F' && rest[0] != 'P') || (len(rest) > 1 && rest[1] != ' ') {
		return l, false
	}
	l.partial = rest[0] == 'P'
	if len(rest) > 2 {
		l.text = rest[2:]
	}
	return l, true
}

// joiner turns CRI lines into entries, joining a stream's partial lines
// with the full line that ends them.
type joiner struct {
	pending map[string]*entry // by stream
}

// add takes one line and returns the entry it completes, if any. The
// returned text is a fresh copy.
func (j *joiner) add(line []byte) (entry, bool) {
	l, ok := parseCRI(line)
	if !ok {
		return entry{text: bytes.Clone(line)}, true
	}
	if j.pending == nil {
		j.pending = map[string]*entry{}
	}
	p := j.pending[l.stream]
	if p == nil {
		p = &entry{ts: l.ts}
		j.pending[l.stream] = p
	}
	if room := maxEntry - len(p.text); room > 0 {
		p.text = append(p.text, l.text[:min(room, len(l.text))]...)
	}
	if l.partial {
		return entry{}, false
	}
	delete(j.pending, l.stream)
	return *p, true
}

// format appends e as kubectl shows it: with timestamps the line's time
// first, as the runtime recorded it.
func (e entry) format(b []byte, timestamps bool) []byte {
	if timestamps && !e.ts.IsZero() {
		b = e.ts.AppendFormat(b, time.RFC3339Nano)
		b = append(b, ' ')
	}
	b = append(b, e.text...)
	return append(b, '\n')
}
