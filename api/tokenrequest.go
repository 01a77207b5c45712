package api

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// The TokenRequest kind is decoded from JSON and protobuf bodies (kubectl
// create token sends protobuf).
func init() {
	addLater(func(s *runtime.Scheme) { utilruntime.Must(authenticationv1.AddToScheme(s)) })
}

// TokenRequestResource describes the authentication.k8s.io/v1
// TokenRequest posted to serviceaccounts/token. Like BindingResource it is
// for decoding only.
var TokenRequestResource = &Resource{
	Group: "authentication.k8s.io", Version: "v1", Name: "tokenrequests", Singular: "tokenrequest",
	Kind: "TokenRequest", Namespaced: true,
	newObject: func() Object { return &authenticationv1.TokenRequest{} },
	newList:   func() runtime.Object { return &metav1.List{} },
}
