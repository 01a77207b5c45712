package apiserver

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// Request body media types.
const (
	mediaJSON           = "application/json"
	mediaYAML           = "application/yaml"
	mediaProtobuf       = "application/vnd.kubernetes.protobuf"
	mediaJSONPatch      = "application/json-patch+json"
	mediaMergePatch     = "application/merge-patch+json"
	mediaStrategicPatch = "application/strategic-merge-patch+json"
	mediaApplyPatch     = "application/apply-patch+yaml"
)

// readBody reads the whole request body, refusing more than maxBody bytes
// with 413.
func (a *API) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > a.maxBody {
		return nil, tooLarge(a.maxBody)
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, a.maxBody))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, tooLarge(a.maxBody)
	case err != nil:
		return nil, badRequest("read request body: %v", err)
	}
	return data, nil
}

func tooLarge(limit int64) error { return registry.TooLarge(limit) }

// mediaType returns the bare media type of a Content-Type header ("" when
// absent), or 415 when it does not parse.
func mediaType(contentType string) (string, error) {
	if strings.TrimSpace(contentType) == "" {
		return "", nil
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", unsupportedMedia(contentType, mediaJSON, mediaYAML, mediaProtobuf)
	}
	return mt, nil
}

func unsupportedMedia(contentType string, accepted ...string) error {
	return statusError(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format (Content-Type %q) - accepted media types include: %s",
			contentType, strings.Join(accepted, ", ")))
}

// decodeBody decodes a create or update body by Content-Type: JSON (also
// when no type is given), YAML or Kubernetes protobuf. It returns the
// unknown-field warnings fieldValidation=Warn should pass on; Strict turns
// them into a 400, Ignore drops them. Every decode failure is a 400.
func decodeBody(res *api.Resource, contentType string, body []byte, validation string) (api.Object, []string, error) {
	mt, err := mediaType(contentType)
	if err != nil {
		return nil, nil, err
	}
	if len(body) == 0 {
		return nil, nil, badRequest("the request body is empty; send a %s object", res.Kind)
	}
	var obj api.Object
	var warnings []string
	strict := validation == validationStrict
	switch mt {
	case "", mediaJSON:
		obj, warnings, err = api.DecodeJSON(res, body, strict)
	case mediaYAML:
		obj, warnings, err = api.DecodeYAML(res, body, strict)
	case mediaProtobuf:
		obj, err = api.DecodeProtobuf(res, body)
	default:
		return nil, nil, unsupportedMedia(contentType, mediaJSON, mediaYAML, mediaProtobuf)
	}
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(err.Error())
	}
	if validation == validationIgnore {
		warnings = nil
	}
	return obj, warnings, nil
}

// addWarnings sets one "Warning: 299 - ..." header per message, as the
// apiserver does for fieldValidation=Warn.
func addWarnings(w http.ResponseWriter, warnings []string) {
	seen := map[string]bool{}
	for _, msg := range warnings {
		if seen[msg] {
			continue
		}
		seen[msg] = true
		w.Header().Add("Warning", `299 - "`+escapeWarning(msg)+`"`)
	}
}

// escapeWarning quotes a warning text for the Warning header: backslashes
// and quotes escaped, control characters dropped.
func escapeWarning(msg string) string {
	var b strings.Builder
	for _, c := range msg {
		switch {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c < 0x20 || c == 0x7f:
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// readRequestObject is the prologue of every handler that takes an object
// in the body: the write options of the query, the body within the size
// limit, and the body decoded as res (with unknown-field warnings).
func (a *API) readRequestObject(w http.ResponseWriter, r *http.Request, ri *requestInfo, res *api.Resource) (api.Object, writeOptions, []string, error) {
	opts, err := parseWriteOptions(ri.query)
	if err != nil {
		return nil, opts, nil, err
	}
	body, err := a.readBody(w, r)
	if err != nil {
		return nil, opts, nil, err
	}
	obj, warnings, err := decodeBody(res, r.Header.Get("Content-Type"), body, opts.FieldValidation)
	return obj, opts, warnings, err
}
