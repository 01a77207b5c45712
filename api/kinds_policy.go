package api

import (
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// The policy kinds: what a namespace may use (ResourceQuota, LimitRange),
// how pods rank and run (PriorityClass, RuntimeClass), and how many may be
// disrupted (PodDisruptionBudget). Their admission, which reads other
// objects, is in server/admission.
func init() {
	addLater(func(s *runtime.Scheme) {
		for _, add := range []func(*runtime.Scheme) error{policyv1.AddToScheme, schedulingv1.AddToScheme, nodev1.AddToScheme} {
			utilruntime.Must(add(s))
		}
		for _, gv := range []schema.GroupVersion{policyv1.SchemeGroupVersion, schedulingv1.SchemeGroupVersion, nodev1.SchemeGroupVersion} {
			metav1.AddToGroupVersion(s, gv)
		}
	})
	registerQuotaKinds()
	registerSchedulingKinds()
}

func registerQuotaKinds() {
	register(&Resource{Version: "v1", Name: "resourcequotas", Singular: "resourcequota", Kind: "ResourceQuota",
		Namespaced: true, ShortNames: []string{"quota"}, Subresources: []string{"status"},
		newObject: func() Object { return &corev1.ResourceQuota{} },
		newList:   func() runtime.Object { return &corev1.ResourceQuotaList{} }},
		Rules{Validate: validateResourceQuota, ValidateStatus: validateResourceQuotaStatus})
	register(&Resource{Version: "v1", Name: "limitranges", Singular: "limitrange", Kind: "LimitRange",
		Namespaced: true, ShortNames: []string{"limits"},
		newObject: func() Object { return &corev1.LimitRange{} },
		newList:   func() runtime.Object { return &corev1.LimitRangeList{} }},
		Rules{Default: defaultLimitRange, Validate: validateLimitRange})
}

func registerSchedulingKinds() {
	register(&Resource{Group: "scheduling.k8s.io", Version: "v1", Name: "priorityclasses", Singular: "priorityclass",
		Kind: "PriorityClass", ShortNames: []string{"pc"},
		newObject: func() Object { return &schedulingv1.PriorityClass{} },
		newList:   func() runtime.Object { return &schedulingv1.PriorityClassList{} }},
		Rules{Default: defaultPriorityClass, Validate: validatePriorityClass, ValidateUpdate: validatePriorityClassUpdate})
	register(&Resource{Group: "node.k8s.io", Version: "v1", Name: "runtimeclasses", Singular: "runtimeclass",
		Kind: "RuntimeClass", StoredOnly: "the agent runs every pod with containerd's default runtime, whatever its handler",
		newObject: func() Object { return &nodev1.RuntimeClass{} },
		newList:   func() runtime.Object { return &nodev1.RuntimeClassList{} }},
		Rules{Validate: validateRuntimeClass, ValidateUpdate: validateRuntimeClassUpdate})
	register(&Resource{Group: "policy", Version: "v1", Name: "poddisruptionbudgets", Singular: "poddisruptionbudget",
		Kind: "PodDisruptionBudget", Namespaced: true, ShortNames: []string{"pdb"}, Subresources: []string{"status"},
		Generation: true,
		newObject:  func() Object { return &policyv1.PodDisruptionBudget{} },
		newList:    func() runtime.Object { return &policyv1.PodDisruptionBudgetList{} }},
		Rules{Validate: validatePDB, ValidateStatus: validatePDBStatus})
}
