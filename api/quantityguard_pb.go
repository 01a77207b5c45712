package api

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
)

// quantityLike matches a whole string that reads as a quantity.
var quantityLike = regexp.MustCompile(`^[+-]?[0-9.]+([eE][+-]?[0-9]+|[a-zA-Z]{0,2})$`)

// maxProtobufDepth bounds how deep guardProtobufQuantities looks into
// nested messages; Kubernetes objects nest far less.
const maxProtobufDepth = 32

// guardProtobufQuantities checks a protobuf-encoded object of type t for
// quantities beyond the limits. Without the schema it cannot tell which
// length-delimited fields are quantities, so it checks every one that reads
// as a quantity, at every nesting level. Kinds without quantity fields are
// not checked at all.
func guardProtobufQuantities(t reflect.Type, raw []byte) error {
	if !typeHoldsQuantity(t) || !suspect(raw, false) {
		return nil
	}
	return walkWire(raw, 0)
}

var errNotMessage = errors.New("not a protobuf message")

// walkWire visits the length-delimited fields of one message. A payload
// that is not itself a valid message is just a string or bytes field.
func walkWire(b []byte, depth int) error {
	for len(b) > 0 {
		payload, n := nextField(b)
		if n <= 0 {
			return errNotMessage
		}
		if payload != nil {
			if err := checkPayload(payload, depth); err != nil {
				return err
			}
		}
		b = b[n:]
	}
	return nil
}

// nextField reads the field at the start of b and returns its payload (for
// length-delimited fields) and its total size; n <= 0 means malformed.
func nextField(b []byte) (payload []byte, n int) {
	tag, n := uvarint(b)
	if n <= 0 {
		return nil, 0
	}
	var size int
	switch tag & 7 {
	case 0:
		_, size = uvarint(b[n:])
	case 1:
		size = 8
	case 5:
		size = 4
	case 2:
		l, m := uvarint(b[n:])
		if m <= 0 || l > uint64(len(b)-n-m) {
			return nil, 0
		}
		return b[n+m : n+m+int(l)], n + m + int(l)
	}
	if size <= 0 || size > len(b)-n {
		return nil, 0
	}
	return nil, n + size
}

func checkPayload(p []byte, depth int) error {
	if quantityLike.Match(p) {
		if err := checkQuantityText(string(p)); err != nil {
			return fmt.Errorf("quantity %q %w", p, err)
		}
	}
	if depth >= maxProtobufDepth {
		return nil
	}
	if err := walkWire(p, depth+1); err != nil && !errors.Is(err, errNotMessage) {
		return err
	}
	return nil
}

// uvarint decodes a protobuf varint; n <= 0 means malformed.
func uvarint(b []byte) (v uint64, n int) {
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}
