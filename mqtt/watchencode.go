package mqtt

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// watchHead is a WatchEvent without its object.
type watchHead struct {
	Type ChangeType `json:"type"`
	ObjectRef
	Rev int64 `json:"rev"`
}

// EncodeStored is Encode for the server's own events, whose Object it made
// from a stored object (valid, compact JSON with the envelope's name,
// namespace and a resourceVersion): the envelope is checked as Encode
// checks it, but the object is copied in as it is rather than parsed
// twice more (a check and json.Marshal's validation), which was most of
// what publishing a watch event cost.
func (w *WatchEvent) EncodeStored() ([]byte, error) {
	if err := w.checkHead(); err != nil {
		return nil, fmt.Errorf("encode watch event: %w", err)
	}
	head, err := json.Marshal(watchHead{Type: w.Type, ObjectRef: w.ObjectRef, Rev: w.Rev})
	if err != nil {
		return nil, err
	}
	return appendObject(head, w.Object), nil
}

// checkHead is check without the parse of the object.
func (w *WatchEvent) checkHead() error {
	if err := checkChangeType(w.Type); err != nil {
		return err
	}
	if err := w.ObjectRef.check(); err != nil {
		return err
	}
	if w.Rev <= 0 {
		return fmt.Errorf("rev: got %d, want > 0", w.Rev)
	}
	if len(w.Object) == 0 || string(w.Object) == "null" {
		return errors.New("object: missing")
	}
	return nil
}

// changeHead is a Change without its object.
type changeHead struct {
	Type ChangeType `json:"type"`
	ObjectRef
}

// EncodeStoredChange is one Change's JSON for EncodeStoredEvent, checked as
// Encode checks a change but with the object (one the server made from a
// stored value) copied in as it is. One encoding serves every node the
// change goes to.
func EncodeStoredChange(c *Change) ([]byte, error) {
	parts, err := EncodeStoredChangeParts(c, 0, nil)
	if err != nil {
		return nil, err
	}
	return slices.Concat(parts...), nil
}

// EncodeStoredChangeParts is EncodeStoredChange of c with insert spliced
// into its object at byte at (c.Object[:at] + insert + c.Object[at:]),
// given as parts whose concatenation is the JSON: EncodeStoredEventParts
// copies them into the Event once. The server splices a stored value's
// resourceVersion in this way without copying the value; the parts share
// c.Object and insert.
func EncodeStoredChangeParts(c *Change, at int, insert []byte) ([][]byte, error) {
	if err := checkChangeType(c.Type); err != nil {
		return nil, fmt.Errorf("encode change: %w", err)
	}
	if err := c.ObjectRef.check(); err != nil {
		return nil, fmt.Errorf("encode change: %w", err)
	}
	if (len(c.Object) == 0 || string(c.Object) == "null") && c.Type != Deleted {
		return nil, fmt.Errorf("encode change: object: missing, want the object for %s", c.Type)
	}
	if at < 0 || at > len(c.Object) {
		return nil, fmt.Errorf("encode change: splice at %d of a %d-byte object", at, len(c.Object))
	}
	head, err := json.Marshal(changeHead{Type: c.Type, ObjectRef: c.ObjectRef})
	if err != nil || len(c.Object) == 0 {
		return [][]byte{head}, err
	}
	head = append(head[:len(head)-1], `,"object":`...) // without its closing brace
	return [][]byte{head, c.Object[:at], insert, c.Object[at:], []byte("}")}, nil
}

// appendObject is head (a JSON object) with "object" added as raw.
func appendObject(head, raw []byte) []byte {
	out := make([]byte, 0, len(head)+len(`,"object":`)+len(raw))
	out = append(out, head[:len(head)-1]...) // without its closing brace
	out = append(out, `,"object":`...)
	out = append(out, raw...)
	return append(out, '}')
}

// changesHead starts a CHANGES Event, up to its revision.
var changesHead = `{"type":` + strconv.Quote(string(EventChanges)) + `,"rev":`

// EncodeStoredEvent is the payload of a CHANGES Event from changes
// encoded by EncodeStoredChange, its revisions checked as Encode checks
// them.
func EncodeStoredEvent(rev, prev int64, changes [][]byte) ([]byte, error) {
	parts := make([][][]byte, len(changes))
	for i, c := range changes {
		parts[i] = [][]byte{c}
	}
	return EncodeStoredEventParts(rev, prev, parts)
}

// EncodeStoredEventParts is EncodeStoredEvent of changes given as
// EncodeStoredChangeParts gives them.
func EncodeStoredEventParts(rev, prev int64, changes [][][]byte) ([]byte, error) {
	e := Event{Type: EventChanges, Rev: rev, Prev: prev}
	if err := e.check(); err != nil {
		return nil, fmt.Errorf("encode event: %w", err)
	}
	if len(changes) == 0 {
		return json.Marshal(e)
	}
	size := len(changesHead) + 2*20 + len(`,"prev":,"changes":[]}`)
	for _, c := range changes {
		for _, p := range c {
			size += len(p)
		}
		size++
	}
	out := make([]byte, 0, size) // one allocation: this runs once per node and update
	out = append(out, changesHead...)
	out = strconv.AppendInt(out, rev, 10)
	out = append(out, `,"prev":`...)
	out = strconv.AppendInt(out, prev, 10)
	out = append(out, `,"changes":[`...)
	for i, c := range changes {
		if i > 0 {
			out = append(out, ',')
		}
		for _, p := range c {
			out = append(out, p...)
		}
	}
	return append(out, "]}"...), nil
}
