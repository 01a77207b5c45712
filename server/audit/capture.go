package audit

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"strings"
)

// maxCapture caps a request or response body an event may hold; a larger
// one is left out of the event (its level still shows what was asked).
const maxCapture = 1 << 20

// capture keeps a copy of a JSON body for events at Request level and up.
type capture struct {
	buf      bytes.Buffer
	on, full bool
	media    string // the body's media type
}

// start arms the capture when contentType is JSON.
func (c *capture) start(contentType string) {
	c.media, _, _ = mime.ParseMediaType(contentType)
	c.on = c.media == "application/json" || strings.HasSuffix(c.media, "+json")
}

// skipped says why a body is not in the event, "" when it is or there is
// none.
func (c *capture) skipped() string {
	switch {
	case c.media != "" && !c.on:
		return "not logged: " + c.media + " is not JSON"
	case c.full:
		return "not logged: larger than 1 MiB"
	}
	return ""
}

func (c *capture) add(p []byte) {
	if !c.on || c.full {
		return
	}
	if c.buf.Len()+len(p) > maxCapture {
		c.full = true
		c.buf.Reset()
		return
	}
	c.buf.Write(p)
}

// object is the captured body as an event field, nil when there is none
// or it is not JSON; omitManaged drops metadata.managedFields.
func (c *capture) object(omitManaged bool) json.RawMessage {
	if !c.on || c.full || c.buf.Len() == 0 || !json.Valid(c.buf.Bytes()) {
		return nil
	}
	raw := json.RawMessage(bytes.TrimSpace(c.buf.Bytes()))
	if !omitManaged || !bytes.Contains(raw, []byte(`"managedFields"`)) {
		return raw
	}
	var obj map[string]any
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return out
}

// bodyReader copies what the handler reads of the request body into the
// record, once the policy has asked for it (SetRequest runs before the API
// reads a body; the join endpoint's, which holds a token secret, is read
// before and so is never kept).
type bodyReader struct {
	io.ReadCloser
	rec *record
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && b.rec.level().atLeast(LevelRequest) {
		b.rec.mu.Lock()
		b.rec.reqBody.add(p[:n])
		b.rec.mu.Unlock()
	}
	return n, err
}
