package api

import (
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// EvictionResource describes the policy/v1 Eviction posted to
// pods/eviction. Like BindingResource it is for decoding only.
var EvictionResource = &Resource{
	Group: "policy", Version: "v1", Name: "evictions", Singular: "eviction", Kind: "Eviction", Namespaced: true,
	newObject: func() Object { return &policyv1.Eviction{} },
	newList:   func() runtime.Object { return &metav1.List{} },
}
