package server

import (
	"math/rand/v2"
	"net/url"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/api"
)

// listQuery holds the query parameters of list and watch.
type listQuery struct {
	labels        labels.Selector
	fields        fields.Selector
	limit         int64
	cont          string
	rvRaw         string // resourceVersion as sent
	rv            int64
	rvMatch       string
	timeout       time.Duration // watch only
	includeObject string        // Table rows: None, Metadata or Object
}

// Bounds on how long a watch stays open without timeoutSeconds, like the
// apiserver's min-request-timeout spread.
const (
	minWatchTimeout = 30 * time.Minute
	maxWatchTimeout = 60 * time.Minute
)

func parseListQuery(res *api.Resource, q url.Values) (*listQuery, error) {
	lq := &listQuery{cont: q.Get("continue"), rvRaw: q.Get("resourceVersion"), rvMatch: q.Get("resourceVersionMatch")}
	var err error
	if lq.labels, err = api.ParseLabelSelector(q.Get("labelSelector")); err != nil {
		return nil, badRequest("labelSelector %q: %v", q.Get("labelSelector"), err)
	}
	if lq.fields, err = api.ParseFieldSelector(res, q.Get("fieldSelector")); err != nil {
		return nil, badRequest("fieldSelector %q: %v", q.Get("fieldSelector"), err)
	}
	if lq.limit, _, err = intParam(q, "limit"); err != nil {
		return nil, err
	}
	if lq.rv, err = parseResourceVersion(lq.rvRaw); err != nil {
		return nil, err
	}
	if lq.includeObject, err = parseIncludeObject(q.Get("includeObject")); err != nil {
		return nil, err
	}
	if err := lq.parseTimeout(q); err != nil {
		return nil, err
	}
	return lq, lq.checkVersionMatch()
}

func (lq *listQuery) parseTimeout(q url.Values) error {
	secs, ok, err := intParam(q, "timeoutSeconds")
	if err != nil {
		return err
	}
	if ok && secs > 0 {
		lq.timeout = time.Duration(min(secs, int64(maxWatchTimeout/time.Second))) * time.Second
		return nil
	}
	spread := int64(maxWatchTimeout - minWatchTimeout)
	lq.timeout = minWatchTimeout + time.Duration(rand.Int64N(spread))
	return nil
}

// checkVersionMatch applies the apiserver's rules for resourceVersionMatch.
func (lq *listQuery) checkVersionMatch() error {
	switch lq.rvMatch {
	case "":
	case string(metav1.ResourceVersionMatchNotOlderThan), string(metav1.ResourceVersionMatchExact):
		if lq.rvRaw == "" {
			return badRequest("resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided")
		}
		if lq.rvMatch == string(metav1.ResourceVersionMatchExact) && lq.rv == 0 {
			return badRequest("resourceVersionMatch: Forbidden: resourceVersionMatch \"Exact\" is forbidden for resourceVersion \"0\"")
		}
	default:
		return badRequest("resourceVersionMatch: Unsupported value: %q: supported values: \"Exact\", \"NotOlderThan\"", lq.rvMatch)
	}
	if lq.cont != "" && lq.rv != 0 {
		return badRequest("resourceVersion: Forbidden: specifying resource version is not allowed when using continue")
	}
	return nil
}

func parseIncludeObject(v string) (string, error) {
	switch v {
	case "":
		return string(metav1.IncludeMetadata), nil
	case string(metav1.IncludeNone), string(metav1.IncludeMetadata), string(metav1.IncludeObject):
		return v, nil
	}
	return "", badRequest("includeObject: Unsupported value: %q: supported values: \"None\", \"Metadata\", \"Object\"", v)
}

// selects reports whether obj passes the label and field selectors.
func (lq *listQuery) selects(res *api.Resource, obj api.Object) bool {
	if !lq.labels.Empty() && !lq.labels.Matches(labels.Set(obj.GetLabels())) {
		return false
	}
	return lq.fields.Empty() || lq.fields.Matches(api.FieldSet(res, obj))
}

// filtered says whether any selector is set.
func (lq *listQuery) filtered() bool { return !lq.labels.Empty() || !lq.fields.Empty() }
