package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/audit"
	"github.com/bramble-edge/bramble/server/auth"
)

// RulesLister is what the rules review asks of the authorizer (server/rbac
// implements it): the rules user holds in namespace, and whether user
// holds every rule.
type RulesLister interface {
	RulesFor(user *auth.User, namespace string) ([]rbacv1.PolicyRule, bool)
}

// reviewFunc answers one review for user.
type reviewFunc func(a *API, w http.ResponseWriter, r *http.Request, user *auth.User, namespace string) (any, error)

// reviewHandler returns the handler of a review path (posted, answered,
// not stored), nil for any other path. Each is authorized as a create of
// its resource, which system:basic-user grants for the self reviews.
func (a *API) reviewHandler(path string) func(w http.ResponseWriter, r *http.Request, user *auth.User) {
	if !strings.HasPrefix(path, "/apis/authorization.k8s.io/") && !strings.HasPrefix(path, "/apis/authentication.k8s.io/") {
		return nil // the common case, without splitting the path
	}
	group, version, ns, resource, ok := reviewPath(path)
	if !ok {
		return nil
	}
	var f reviewFunc
	switch {
	case group == "authorization.k8s.io" && version == "v1" && resource == "selfsubjectrulesreviews" && ns == "":
		f = (*API).reviewRules
	case group == "authorization.k8s.io" && version == "v1" && resource == "subjectaccessreviews" && ns == "":
		f = (*API).reviewSubjectAccess
	case group == "authorization.k8s.io" && version == "v1" && resource == "localsubjectaccessreviews" && ns != "":
		f = (*API).reviewSubjectAccess
	case group == "authentication.k8s.io" && resource == "selfsubjectreviews" && ns == "" &&
		(version == "v1" || version == "v1beta1" || version == "v1alpha1"):
		f = (*API).reviewSelf
	default:
		return nil
	}
	return func(w http.ResponseWriter, r *http.Request, user *auth.User) {
		audit.SetRequest(r.Context(), audit.Request{Verb: "create", ResourceRequest: true,
			APIGroup: group, APIVersion: version, Resource: resource, Namespace: ns})
		out, err := a.serveReview(w, r, user, f, group, resource, ns)
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusCreated, out)
	}
}

func (a *API) serveReview(w http.ResponseWriter, r *http.Request, user *auth.User, f reviewFunc, group, resource, ns string) (any, error) {
	if r.Method != http.MethodPost {
		return nil, methodNotAllowedPath()
	}
	attrs := auth.Attributes{Verb: "create", Group: group, Resource: resource, Namespace: ns}
	if err := a.authz.Authorize(r.Context(), user, attrs); err != nil {
		return nil, authError(err, auth.ErrForbidden, func(err error) error {
			return forbidden(&requestInfo{verb: "create", path: r.URL.Path}, user, err)
		})
	}
	return f(a, w, r, user, ns)
}

// reviewPath splits /apis/<group>/<version>[/namespaces/<ns>]/<resource>.
func reviewPath(path string) (group, version, ns, resource string, ok bool) {
	parts := strings.Split(strings.TrimPrefix(path, "/apis/"), "/")
	switch {
	case !strings.HasPrefix(path, "/apis/") || slices.Contains(parts, ""):
		return "", "", "", "", false
	case len(parts) == 3:
		return parts[0], parts[1], "", parts[2], true
	case len(parts) == 5 && parts[2] == "namespaces" && parts[3] != "":
		return parts[0], parts[1], parts[3], parts[4], true
	}
	return "", "", "", "", false
}

// decodeReview reads a review body (JSON, or protobuf as kubectl 1.33
// sends for res) into v, a pointer to res's type.
func (a *API) decodeReview(w http.ResponseWriter, r *http.Request, res *api.Resource, v api.Object) error {
	ct := r.Header.Get("Content-Type")
	mt, err := mediaType(ct)
	if err != nil {
		return err
	}
	if mt != "" && mt != mediaJSON && mt != mediaProtobuf {
		return unsupportedMedia(ct, mediaJSON, mediaProtobuf)
	}
	body, err := a.readBody(w, r)
	if err != nil {
		return err
	}
	if mt != mediaProtobuf {
		return parseReview(body, v)
	}
	obj, _, err := decodeBody(res, ct, body, "Ignore")
	if err != nil {
		return err
	}
	if reflect.TypeOf(obj) != reflect.TypeOf(v) {
		return badRequest("the body is not a %s", res.Kind)
	}
	reflect.ValueOf(v).Elem().Set(reflect.ValueOf(obj).Elem())
	return nil
}

// parseReview decodes a review body; the fuzz test feeds it.
func parseReview(body []byte, v any) error {
	if len(body) == 0 {
		return badRequest("the request body is empty")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return badRequest("decode review: %v", err)
	}
	return nil
}

// reviewSelf answers a SelfSubjectReview (kubectl auth whoami): who the
// server takes the caller for, impersonation applied.
func (a *API) reviewSelf(w http.ResponseWriter, r *http.Request, user *auth.User, _ string) (any, error) {
	var review authenticationv1.SelfSubjectReview
	if err := a.decodeReview(w, r, api.SelfSubjectReviewResource, &review); err != nil {
		return nil, err
	}
	_, version, _, _, _ := reviewPath(r.URL.Path)
	review.APIVersion, review.Kind = "authentication.k8s.io/"+version, "SelfSubjectReview"
	info := authenticationv1.UserInfo{Username: user.Name, UID: user.UID, Groups: user.Groups}
	for k, v := range user.Extra {
		if info.Extra == nil {
			info.Extra = map[string]authenticationv1.ExtraValue{}
		}
		info.Extra[k] = v
	}
	review.Status.UserInfo = info
	return &review, nil
}

// decision runs the authorizer for a review and words its answer.
func (a *API) decision(ctx context.Context, user *auth.User, attrs auth.Attributes) authorizationv1.SubjectAccessReviewStatus {
	err := a.authz.Authorize(ctx, user, attrs)
	st := authorizationv1.SubjectAccessReviewStatus{Allowed: err == nil}
	switch {
	case errors.Is(err, auth.ErrForbidden):
		st.Reason = err.Error()
	case err != nil:
		st.EvaluationError = err.Error()
	}
	return st
}
