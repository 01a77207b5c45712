package apiserver

import (
	"math/rand/v2"
	"net/url"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// listQuery holds the query parameters of list and watch.
type listQuery struct {
	registry.ListOptions
	rvRaw         string        // resourceVersion as sent
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
	lq := &listQuery{rvRaw: q.Get("resourceVersion")}
	lq.Continue, lq.ResourceVersionMatch = q.Get("continue"), q.Get("resourceVersionMatch")
	var err error
	if lq.Labels, err = api.ParseLabelSelector(q.Get("labelSelector")); err != nil {
		return nil, badRequest("labelSelector %q: %v", q.Get("labelSelector"), err)
	}
	if lq.Fields, err = api.ParseFieldSelector(res, q.Get("fieldSelector")); err != nil {
		return nil, badRequest("fieldSelector %q: %v", q.Get("fieldSelector"), err)
	}
	if lq.Limit, _, err = intParam(q, "limit"); err != nil {
		return nil, err
	}
	if lq.ResourceVersion, err = parseResourceVersion(lq.rvRaw); err != nil {
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
	switch lq.ResourceVersionMatch {
	case "":
	case string(metav1.ResourceVersionMatchNotOlderThan), string(metav1.ResourceVersionMatchExact):
		if lq.rvRaw == "" {
			return badRequest("resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided")
		}
		if lq.ResourceVersionMatch == string(metav1.ResourceVersionMatchExact) && lq.ResourceVersion == 0 {
			return badRequest("resourceVersionMatch: Forbidden: resourceVersionMatch \"Exact\" is forbidden for resourceVersion \"0\"")
		}
	default:
		return badRequest("resourceVersionMatch: Unsupported value: %q: supported values: \"Exact\", \"NotOlderThan\"", lq.ResourceVersionMatch)
	}
	if lq.Continue != "" && lq.ResourceVersion != 0 {
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
