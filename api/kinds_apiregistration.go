package api

import (
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// APIServicesStoredOnly is what bramble does not do with APIServices.
const APIServicesStoredOnly = "APIServices with a service are not proxied to: only the group versions bramble serves itself (Local) are available"

func init() {
	gv := APIRegistrationGroupVersion
	addLater(func(s *runtime.Scheme) { s.AddKnownTypes(gv, &APIService{}, &APIServiceList{}) })
	addServedGroup(func(*runtime.Scheme) error { return nil }, gv)
	register(&Resource{Group: gv.Group, Version: gv.Version, Name: "apiservices", Singular: "apiservice",
		Kind: "APIService", Categories: []string{"api-extensions"}, Subresources: []string{"status"},
		StoredOnly: APIServicesStoredOnly,
		newObject:  func() Object { return &APIService{} },
		newList:    func() runtime.Object { return &APIServiceList{} }},
		Rules{Name: apiServiceName, Default: defaultAPIService, Validate: validateAPIService})
}

// defaultAPIService calls a service on port 443 unless told otherwise.
func defaultAPIService(obj Object) {
	if svc := obj.(*APIService).Spec.Service; svc != nil {
		setDefault(&svc.Port, int32(443))
	}
}

// apiServiceName accepts "<version>.<group>", and "v1." for the core group.
func apiServiceName(name string, prefix bool) []string {
	version, group, ok := strings.Cut(name, ".")
	if !ok || prefix {
		return []string{"must be <version>.<group>"}
	}
	msgs := validation.IsDNS1035Label(version)
	if group != "" {
		msgs = append(msgs, validation.IsDNS1123Subdomain(group)...)
	}
	return msgs
}

// validateAPIService applies upstream's rules (kube-aggregator's
// validation): the name is version.group of the spec, priorities are in
// range, and a local APIService has no service, CA bundle or TLS flag.
func validateAPIService(obj Object) field.ErrorList {
	s := obj.(*APIService)
	sp := field.NewPath("spec")
	var errs field.ErrorList
	if want := s.Spec.Version + "." + s.Spec.Group; s.Name != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), s.Name, "must be "+want+" (spec.version.spec.group)"))
	}
	if s.Spec.Version == "" {
		errs = append(errs, field.Required(sp.Child("version"), ""))
	}
	if p := s.Spec.GroupPriorityMinimum; p <= 0 || p > 20000 {
		errs = append(errs, field.Invalid(sp.Child("groupPriorityMinimum"), p, "must be positive and less than 20000"))
	}
	if p := s.Spec.VersionPriority; p <= 0 || p > 1000 {
		errs = append(errs, field.Invalid(sp.Child("versionPriority"), p, "must be positive and less than 1000"))
	}
	return append(errs, validateAPIServiceTarget(&s.Spec, sp)...)
}

// validateAPIServiceTarget: a local APIService has no CA bundle nor TLS
// flag; a remote one names its Service, a port in range, and not both a
// CA bundle and insecureSkipTLSVerify.
func validateAPIServiceTarget(spec *APIServiceSpec, sp *field.Path) field.ErrorList {
	var errs field.ErrorList
	svc := spec.Service
	if svc == nil {
		if len(spec.CABundle) > 0 {
			errs = append(errs, field.Invalid(sp.Child("caBundle"), "<ca bundle>", "local APIServices may not have a caBundle"))
		}
		if spec.InsecureSkipTLSVerify {
			errs = append(errs, field.Invalid(sp.Child("insecureSkipTLSVerify"), true, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return errs
	}
	if svc.Namespace == "" {
		errs = append(errs, field.Required(sp.Child("service", "namespace"), ""))
	}
	if svc.Name == "" {
		errs = append(errs, field.Required(sp.Child("service", "name"), ""))
	} else {
		for _, msg := range apivalidation.NameIsDNS1035Label(svc.Name, false) {
			errs = append(errs, field.Invalid(sp.Child("service", "name"), svc.Name, msg))
		}
	}
	if p := svc.Port; p != nil && (*p < 1 || *p > 65535) {
		errs = append(errs, field.Invalid(sp.Child("service", "port"), *p, "must be between 1 and 65535, inclusive"))
	}
	if spec.InsecureSkipTLSVerify && len(spec.CABundle) > 0 {
		errs = append(errs, field.Invalid(sp.Child("insecureSkipTLSVerify"), true, "may not be true if caBundle is present"))
	}
	return errs
}
