package api

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func init() {
	addServedGroup(authenticationv1.AddToScheme, authenticationv1.SchemeGroupVersion)
}

// reviewResource describes a review kind the API answers without storing;
// like SelfSubjectAccessReviewResource it is for decoding only.
func reviewResource(group, name, kind string, obj func() Object) *Resource {
	return &Resource{Group: group, Version: "v1", Name: name, Singular: name[:len(name)-1], Kind: kind,
		newObject: obj, newList: func() runtime.Object { return &metav1.List{} }}
}

// The other reviews: kubectl auth can-i --list, a SubjectAccessReview and
// its namespaced form, and kubectl auth whoami.
var (
	SelfSubjectRulesReviewResource = reviewResource(authorizationv1.GroupName, "selfsubjectrulesreviews", "SelfSubjectRulesReview",
		func() Object { return &authorizationv1.SelfSubjectRulesReview{} })
	SubjectAccessReviewResource = reviewResource(authorizationv1.GroupName, "subjectaccessreviews", "SubjectAccessReview",
		func() Object { return &authorizationv1.SubjectAccessReview{} })
	LocalSubjectAccessReviewResource = reviewResource(authorizationv1.GroupName, "localsubjectaccessreviews", "LocalSubjectAccessReview",
		func() Object { return &authorizationv1.LocalSubjectAccessReview{} })
	SelfSubjectReviewResource = reviewResource(authenticationv1.GroupName, "selfsubjectreviews", "SelfSubjectReview",
		func() Object { return &authenticationv1.SelfSubjectReview{} })
)
