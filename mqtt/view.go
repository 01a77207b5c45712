package mqtt

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A node relists with one REST call on the API server's port,
//
//	GET /v1-bramble/nodes/{node}/view?since=R
//
// with its node certificate. The answer is a View: the changes to the
// node's view since R when the server still has that history (R > 0),
// else the whole view. docs/MQTT-DELIVERY.md describes it.

// ViewPrefix starts every view path.
const ViewPrefix = "/v1-bramble/nodes/"

// MaxViewBytes caps a View a decoder accepts.
const MaxViewBytes = 64 << 20

// ViewPath is the path of node's view.
func ViewPath(node string) string { return ViewPrefix + node + "/view" }

// NodeOfViewPath returns the node a view path names (a DNS subdomain).
func NodeOfViewPath(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, ViewPrefix)
	if !ok {
		return "", false
	}
	node, ok := strings.CutSuffix(rest, "/view")
	if !ok || !validName(node) {
		return "", false
	}
	return node, true
}

// View is a node's view at Rev. Full: every object in it, each ADDED, and
// Since is 0. Otherwise the changes since Since, as an Event with Prev =
// Since would carry them (referenced objects entering the view before the
// pods, DELETED for what left); objects not named are as the node holds
// them at Since.
type View struct {
	Rev     int64    `json:"rev"`
	Since   int64    `json:"since"`
	Full    bool     `json:"full"`
	Changes []Change `json:"changes"`
}

// Encode checks v and returns its JSON.
func (v *View) Encode() ([]byte, error) {
	if err := v.check(); err != nil {
		return nil, fmt.Errorf("encode view: %w", err)
	}
	return json.Marshal(v)
}

// DecodeView decodes and checks a View, naming the field that is wrong.
func DecodeView(data []byte) (*View, error) {
	var v View
	if err := decodeStrict(data, MaxViewBytes, &v); err != nil {
		return nil, fmt.Errorf("decode view: %w", err)
	}
	if err := v.check(); err != nil {
		return nil, fmt.Errorf("decode view: %w", err)
	}
	return &v, nil
}

func (v *View) check() error {
	switch {
	case v.Rev <= 0:
		return fmt.Errorf("rev: got %d, want > 0", v.Rev)
	case v.Full && v.Since != 0:
		return fmt.Errorf("since: got %d for a full view, want 0", v.Since)
	case !v.Full && (v.Since <= 0 || v.Since > v.Rev):
		return fmt.Errorf("since: got %d, want 0 < since <= rev (%d)", v.Since, v.Rev)
	}
	for i := range v.Changes {
		c := &v.Changes[i]
		if v.Full && c.Type != Added {
			return fmt.Errorf("changes[%d].type: got %q in a full view, want %s", i, c.Type, Added)
		}
		if err := c.check(); err != nil {
			return fmt.Errorf("changes[%d].%w", i, err)
		}
	}
	return nil
}
