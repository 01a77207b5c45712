package mqtt

import (
	"bytes"

	jsonv2 "github.com/go-json-experiment/json"
)

// The payloads every node sends all the time (pod status reports, and
// heartbeats) are decoded on the server by decodeFast. decodeStrict's
// reflection decoder (sigs.k8s.io/json, encoding/json v1 underneath) was
// the largest single cost of a pod status report on the server: about
// 8 % of the server's CPU while 1,000 hollow nodes report pods Running.
//
// decodeFast first tries encoding/json/v2 (the go-json-experiment/json
// module, the code Go 1.27 ships as encoding/json/v2; this Go has it only
// behind GOEXPERIMENT=jsonv2): about a third of the CPU and half the
// allocations for a hollow node's report. Its defaults are as strict as
// decodeStrict's rules: names match case-sensitively, and a duplicate name
// is an error; fastOptions also refuses unknown members. Whatever it
// refuses, decodeStrict decodes again, and its answer stands: the same
// error, worded the same, and for the few inputs only v2 refuses (invalid
// UTF-8, which v1 replaces) the same value as before. What v2 accepts,
// decodeStrict accepts with the very same value: FuzzDecodeFastAgreesPodStatus
// and FuzzDecodeFastAgreesHeartbeat hold the two to that.
func decodeFast[T any](data []byte, limit int, v *T) error {
	if len(data) <= limit && startsObject(data) {
		if err := jsonv2.Unmarshal(data, v, fastOptions); err == nil {
			return nil
		}
		var zero T
		*v = zero // v2 may have filled in part of it before failing
	}
	return decodeStrict(data, limit, v)
}

var fastOptions = jsonv2.RejectUnknownMembers(true)

// startsObject reports whether data's first non-space byte opens an
// object (decodeStrict refuses anything else; v2 would take null).
func startsObject(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}
