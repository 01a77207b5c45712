package apiserver

import (
	"net/http"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/bramble-edge/bramble/api"
)

// TestSelfSubjectAccessReview: the review is answered by the authorizer
// that guards requests, for the caller, in JSON or protobuf, and nothing
// but one of resource or non-resource attributes is accepted.
func TestSelfSubjectAccessReview(t *testing.T) {
	e := newTestEnv(t)
	review := func(token, verb, resource string) authorizationv1.SelfSubjectAccessReview {
		t.Helper()
		body := map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
			"spec": map[string]any{"resourceAttributes": map[string]any{"verb": verb, "resource": resource, "namespace": "default"}}}
		var out authorizationv1.SelfSubjectAccessReview
		e.do(req{method: "POST", path: accessReviewPath, body: body, token: token}).must(t, http.StatusCreated).into(t, &out)
		return out
	}
	if got := review("", "delete", "pods"); !got.Status.Allowed || got.Kind != "SelfSubjectAccessReview" {
		t.Fatalf("admin delete pods: got %+v, want allowed", got)
	}
	if got := review("viewer-token", "list", "pods"); !got.Status.Allowed {
		t.Fatalf("viewer list pods: got %+v, want allowed", got.Status)
	}
	if got := review("viewer-token", "create", "pods"); got.Status.Allowed || got.Status.Reason == "" {
		t.Fatalf("viewer create pods: got %+v, want denied with a reason", got.Status)
	}
	e.post(accessReviewPath, map[string]any{"spec": map[string]any{}}).status(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	e.do(req{method: "GET", path: accessReviewPath}).status(t, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed)
	e.do(req{method: "POST", path: accessReviewPath, body: "{", token: "viewer-token"}).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)

	pb := protobuf.NewSerializer(api.Scheme(), api.Scheme())
	in := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}}}
	in.APIVersion, in.Kind = "authorization.k8s.io/v1", "SelfSubjectAccessReview"
	data, err := runtime.Encode(pb, in)
	if err != nil {
		t.Fatal(err)
	}
	var out authorizationv1.SelfSubjectAccessReview
	e.do(req{method: "POST", path: accessReviewPath, body: data, contentType: mediaProtobuf}).must(t, http.StatusCreated).into(t, &out)
	if !out.Status.Allowed {
		t.Fatalf("protobuf review of /healthz: got %+v, want allowed", out.Status)
	}
}

func FuzzParseAccessReview(f *testing.F) {
	f.Add("application/json", []byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}`))
	f.Add("application/yaml", []byte("spec: {nonResourceAttributes: {path: /healthz, verb: get}}\n"))
	f.Add("application/vnd.kubernetes.protobuf", []byte("k8s\x00\n\x2f\n\x17authorization.k8s.io/v1\x12\x17SelfSubjectAccessReview"))
	f.Add("", []byte(`{"spec":{"resourceAttributes":{},"nonResourceAttributes":{}}}`))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		review, err := parseAccessReview(contentType, body)
		requireStatus(t, err)
		if err == nil {
			if (review.Spec.ResourceAttributes == nil) == (review.Spec.NonResourceAttributes == nil) {
				t.Fatalf("accepted a review asking %+v", review.Spec)
			}
			_ = reviewAttributes(&review.Spec)
		}
	})
}
