package api

import (
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func init() {
	addServedGroup(authorizationv1.AddToScheme, authorizationv1.SchemeGroupVersion)
}

// SelfSubjectAccessReviewResource describes authorization.k8s.io/v1
// SelfSubjectAccessReview, which the API answers without storing (kubectl
// auth can-i). Like ScaleResource it is for decoding only: All does not
// list it and it is not in discovery.
var SelfSubjectAccessReviewResource = &Resource{
	Group: authorizationv1.GroupName, Version: "v1", Name: "selfsubjectaccessreviews",
	Singular: "selfsubjectaccessreview", Kind: "SelfSubjectAccessReview",
	newObject: func() Object { return &authorizationv1.SelfSubjectAccessReview{} },
	newList:   func() runtime.Object { return &metav1.List{} },
}
