package mqtt

import (
	"encoding/json"
	"errors"
	"fmt"
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
	out := make([]byte, 0, len(head)+len(`,"object":`)+len(w.Object))
	out = append(out, head[:len(head)-1]...) // without its closing brace
	out = append(out, `,"object":`...)
	out = append(out, w.Object...)
	return append(out, '}'), nil
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
