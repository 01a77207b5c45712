package apiserver

import (
	"errors"
	"net/http"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/auth"
)

// accessReviewPath is where SelfSubjectAccessReviews are posted.
const accessReviewPath = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"

// reviewAccess answers a SelfSubjectAccessReview (kubectl auth can-i) from
// the authorizer that guards every request: may the caller do what the
// review describes? Every authenticated user may ask about themselves, as
// upstream's system:basic-user role allows. Nothing is stored.
func (a *API) reviewAccess(w http.ResponseWriter, r *http.Request, user *auth.User) {
	if r.Method != http.MethodPost {
		a.writeError(w, r, methodNotAllowedPath())
		return
	}
	review, err := a.decodeAccessReview(w, r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	err = a.authz.Authorize(r.Context(), user, reviewAttributes(&review.Spec))
	review.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: err == nil}
	switch {
	case errors.Is(err, auth.ErrForbidden):
		review.Status.Reason = err.Error()
	case err != nil:
		review.Status.EvaluationError = err.Error()
	}
	review.APIVersion, review.Kind = "authorization.k8s.io/v1", "SelfSubjectAccessReview"
	data, err := api.EncodeObject(review)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeRaw(w, http.StatusCreated, mediaJSON, data)
}

func (a *API) decodeAccessReview(w http.ResponseWriter, r *http.Request) (*authorizationv1.SelfSubjectAccessReview, error) {
	body, err := a.readBody(w, r)
	if err != nil {
		return nil, err
	}
	return parseAccessReview(r.Header.Get("Content-Type"), body)
}

// parseAccessReview decodes a review body (JSON, YAML or protobuf) and
// checks that it asks exactly one question.
func parseAccessReview(contentType string, body []byte) (*authorizationv1.SelfSubjectAccessReview, error) {
	obj, _, err := decodeBody(api.SelfSubjectAccessReviewResource, contentType, body, "Ignore")
	if err != nil {
		return nil, err
	}
	review, ok := obj.(*authorizationv1.SelfSubjectAccessReview)
	if !ok {
		return nil, badRequest("the body is not a SelfSubjectAccessReview")
	}
	if (review.Spec.ResourceAttributes == nil) == (review.Spec.NonResourceAttributes == nil) {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: authorizationv1.GroupName, Kind: "SelfSubjectAccessReview"}, "",
			field.ErrorList{field.Invalid(field.NewPath("spec"), "", "exactly one of nonResourceAttributes or resourceAttributes must be specified")})
	}
	return review, nil
}

// reviewAttributes turns a review's question into the authorizer's terms.
func reviewAttributes(spec *authorizationv1.SelfSubjectAccessReviewSpec) auth.Attributes {
	if nr := spec.NonResourceAttributes; nr != nil {
		return auth.Attributes{Verb: nr.Verb, NonResourcePath: nr.Path}
	}
	ra := spec.ResourceAttributes
	if ra == nil {
		return auth.Attributes{}
	}
	return auth.Attributes{Verb: ra.Verb, Group: ra.Group, Resource: ra.Resource, Subresource: ra.Subresource,
		Namespace: ra.Namespace, Name: ra.Name}
}
