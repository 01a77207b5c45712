package api

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The apiregistration.k8s.io/v1 types are upstream's (k8s.io/kube-aggregator
// pkg/apis/apiregistration/v1) in shape and JSON, declared here because
// that module would bring the aggregator's server dependencies with it.

// APIRegistrationGroupVersion is apiregistration.k8s.io/v1.
var APIRegistrationGroupVersion = schema.GroupVersion{Group: "apiregistration.k8s.io", Version: "v1"}

// APIService tells the API server who serves one group version: itself
// (no service) or another server behind a Service. Its name is
// "<version>.<group>".
type APIService struct {
	metav1.TypeMeta `json:",inline"`
	// The object's metadata; the name is "<version>.<group>".
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec says where the group version is served.
	Spec APIServiceSpec `json:"spec,omitempty"`
	// Status says whether the group version is being served.
	Status APIServiceStatus `json:"status,omitempty"`
}

// APIServiceSpec names the group version and, for one served elsewhere,
// the Service to reach it through (https only).
type APIServiceSpec struct {
	// Service is where requests for the group version are sent. Without
	// one the API server serves the group version itself ("Local").
	// +optional
	Service *ServiceReference `json:"service,omitempty"`
	// Group is the API group served.
	Group string `json:"group,omitempty"`
	// Version is the version of the group served, "v1" for example.
	Version string `json:"version,omitempty"`
	// InsecureSkipTLSVerify turns off the check of the serving
	// certificate of the Service; caBundle is the safe way.
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty"`
	// CABundle holds PEM CA certificates that verify the Service's serving
	// certificate (the system's roots when empty).
	// +listType=atomic
	// +optional
	CABundle []byte `json:"caBundle,omitempty"`
	// GroupPriorityMinimum is the least priority of the group in
	// discovery; clients prefer groups of higher priority.
	GroupPriorityMinimum int32 `json:"groupPriorityMinimum"`
	// VersionPriority orders the versions of the group (higher first);
	// it must be above zero.
	VersionPriority int32 `json:"versionPriority"`
}

// ServiceReference names a core/v1 Service.
type ServiceReference struct {
	// Namespace of the Service.
	Namespace string `json:"namespace,omitempty"`
	// Name of the Service.
	Name string `json:"name,omitempty"`
	// Port of the Service to call, 1 to 65535 (443 when not set).
	// +optional
	Port *int32 `json:"port,omitempty"`
}

// APIServiceStatus is what is known of the group version's server.
type APIServiceStatus struct {
	// Conditions of the APIService; "Available" says whether it is served.
	// +optional
	// +patchMergeKey=type
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=type
	Conditions []APIServiceCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// APIServiceCondition is one observed condition of an APIService.
type APIServiceCondition struct {
	// Type of the condition, "Available".
	Type string `json:"type"`
	// Status of the condition: True, False or Unknown.
	Status string `json:"status"`
	// When the status last changed.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	// Reason for the last change, one CamelCase word ("Local").
	// +optional
	Reason string `json:"reason,omitempty"`
	// Message about the last change, for people.
	// +optional
	Message string `json:"message,omitempty"`
}

// APIServiceList is a list of APIServices.
type APIServiceList struct {
	metav1.TypeMeta `json:",inline"`
	// The list's metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the APIServices.
	Items []APIService `json:"items"`
}

// DeepCopyObject copies the APIService, nothing shared.
func (in *APIService) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy copies the APIService, nothing shared.
func (in *APIService) DeepCopy() *APIService {
	if in == nil {
		return nil
	}
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if s := in.Spec.Service; s != nil {
		svc := *s
		if s.Port != nil {
			port := *s.Port
			svc.Port = &port
		}
		out.Spec.Service = &svc
	}
	out.Spec.CABundle = append([]byte(nil), in.Spec.CABundle...)
	if in.Status.Conditions != nil {
		out.Status.Conditions = make([]APIServiceCondition, len(in.Status.Conditions))
		for i, c := range in.Status.Conditions {
			c.LastTransitionTime = *c.LastTransitionTime.DeepCopy()
			out.Status.Conditions[i] = c
		}
	}
	return &out
}

// DeepCopyObject copies the list, nothing shared.
func (in *APIServiceList) DeepCopyObject() runtime.Object {
	out := &APIServiceList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]APIService, len(in.Items))
		for i := range in.Items {
			out.Items[i] = *in.Items[i].DeepCopy()
		}
	}
	return out
}
