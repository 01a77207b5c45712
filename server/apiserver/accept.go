package apiserver

import (
	"mime"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// mediaRange is one entry of an Accept header.
type mediaRange struct {
	typ, sub string
	params   map[string]string
}

// maxAcceptEntries bounds the work an absurd Accept header can cause.
const maxAcceptEntries = 32

// parseAccept splits an Accept header into media ranges, in the client's
// order. Entries that do not parse are skipped.
func parseAccept(h string) []mediaRange {
	var out []mediaRange
	for _, part := range strings.SplitN(h, ",", maxAcceptEntries+1) {
		if len(out) == maxAcceptEntries {
			break
		}
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		mt, params, err := mime.ParseMediaType(part)
		if err != nil {
			continue
		}
		typ, sub, ok := strings.Cut(mt, "/")
		if !ok {
			if mt != "*" {
				continue
			}
			sub = "*"
		}
		out = append(out, mediaRange{typ: typ, sub: sub, params: params})
	}
	return out
}

// output is the response form negotiated from Accept.
type output int

const (
	outJSON        output = iota
	outTable              // meta.k8s.io/v1 Table
	outDiscoveryV2        // apidiscovery.k8s.io/v2 APIGroupDiscoveryList
)

// Response content types beyond plain JSON.
const (
	contentTypeDiscoveryV2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
)

// negotiate picks the first Accept entry bramble can answer. Plain JSON
// stands in for protobuf: clients that prefer protobuf also take JSON.
// allowed says which of Table and aggregated discovery the path serves.
func negotiate(accept string, allowed ...output) (output, error) {
	if strings.TrimSpace(accept) == "" {
		return outJSON, nil
	}
	for _, m := range parseAccept(accept) {
		if out, ok := m.output(); ok && (out == outJSON || containsOutput(allowed, out)) {
			return out, nil
		}
	}
	return outJSON, statusError(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"only the following media types are accepted: application/json, application/vnd.kubernetes.protobuf, "+
			"application/json;as=Table;v=v1;g=meta.k8s.io")
}

// output says what form m asks for, and whether bramble has it at all.
func (m mediaRange) output() (output, bool) {
	as := m.params["as"]
	switch {
	case as == "Table" && m.params["g"] == "meta.k8s.io" && m.params["v"] == "v1" && m.isJSON():
		return outTable, true
	case as == "APIGroupDiscoveryList" && m.params["g"] == "apidiscovery.k8s.io" && m.params["v"] == "v2" && m.isJSON():
		return outDiscoveryV2, true
	case as != "":
		return outJSON, false
	case m.typ == "*", m.typ == "application" && (m.sub == "*" || m.isJSON() || m.sub == "vnd.kubernetes.protobuf"):
		return outJSON, true
	}
	return outJSON, false
}

func (m mediaRange) isJSON() bool { return m.typ == "application" && m.sub == "json" }

func containsOutput(list []output, o output) bool {
	for _, x := range list {
		if x == o {
			return true
		}
	}
	return false
}
