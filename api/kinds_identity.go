package api

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func init() {
	register(&Resource{Version: "v1", Name: "serviceaccounts", Singular: "serviceaccount", Kind: "ServiceAccount",
		Namespaced: true, ShortNames: []string{"sa"}, Subresources: []string{"token"},
		newObject: func() Object { return &corev1.ServiceAccount{} },
		newList:   func() runtime.Object { return &corev1.ServiceAccountList{} }}, Rules{})
}
