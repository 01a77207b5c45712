package api

import (
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateIngress follows upstream's ValidateIngressSpec.
func validateIngress(ing *networkingv1.Ingress) field.ErrorList {
	s := &ing.Spec
	var errs field.ErrorList
	if s.DefaultBackend == nil && len(s.Rules) == 0 {
		errs = append(errs, field.Invalid(specPath, s, "either `defaultBackend` or `rules` must be specified"))
	}
	if s.DefaultBackend != nil {
		errs = append(errs, validateIngressBackend(s.DefaultBackend, specPath.Child("defaultBackend"))...)
	}
	if c := s.IngressClassName; c != nil {
		errs = append(errs, invalidEach(specPath.Child("ingressClassName"), *c, apivalidation.NameIsDNSSubdomain(*c, false))...)
	}
	for i := range s.Rules {
		errs = append(errs, validateIngressRule(&s.Rules[i], specPath.Child("rules").Index(i))...)
	}
	for i, t := range s.TLS {
		p := specPath.Child("tls").Index(i)
		for j, h := range t.Hosts {
			errs = append(errs, validateIngressHost(h, p.Child("hosts").Index(j))...)
		}
		if t.SecretName != "" {
			errs = append(errs, invalidEach(p.Child("secretName"), t.SecretName, apivalidation.NameIsDNSSubdomain(t.SecretName, false))...)
		}
	}
	return errs
}

func validateIngressRule(r *networkingv1.IngressRule, p *field.Path) field.ErrorList {
	errs := validateIngressHost(r.Host, p.Child("host"))
	if r.HTTP == nil {
		return errs
	}
	hp := p.Child("http", "paths")
	if len(r.HTTP.Paths) == 0 {
		errs = append(errs, field.Required(hp, ""))
	}
	for j := range r.HTTP.Paths {
		errs = append(errs, validateIngressPath(&r.HTTP.Paths[j], hp.Index(j))...)
	}
	return errs
}

// validateIngressHost allows a DNS name or a wildcard ("*.example.com"),
// never an IP address.
func validateIngressHost(host string, p *field.Path) field.ErrorList {
	if host == "" {
		return nil
	}
	if validation.IsValidIP(p, host) == nil {
		return field.ErrorList{field.Invalid(p, host, "must be a DNS name, not an IP address")}
	}
	if strings.Contains(host, "*") {
		return invalidEach(p, host, validation.IsWildcardDNS1123Subdomain(host))
	}
	return invalidEach(p, host, validation.IsDNS1123Subdomain(host))
}

var pathTypes = []networkingv1.PathType{networkingv1.PathTypeExact, networkingv1.PathTypePrefix, networkingv1.PathTypeImplementationSpecific}

func validateIngressPath(hp *networkingv1.HTTPIngressPath, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if hp.PathType == nil {
		errs = append(errs, field.Required(p.Child("pathType"), "pathType must be specified"))
	} else {
		errs = append(errs, oneOf(*hp.PathType, pathTypes, p.Child("pathType"))...)
	}
	path := hp.Path
	if hp.PathType != nil && *hp.PathType != networkingv1.PathTypeImplementationSpecific || path != "" {
		if !strings.HasPrefix(path, "/") {
			errs = append(errs, field.Invalid(p.Child("path"), path, "must be an absolute path"))
		}
	}
	if hp.PathType != nil && *hp.PathType != networkingv1.PathTypeImplementationSpecific {
		for _, bad := range []string{"//", "/./", "/../", "%2f", "%2F"} {
			if strings.Contains(path, bad) {
				errs = append(errs, field.Invalid(p.Child("path"), path, "must not contain '"+bad+"'"))
			}
		}
		for _, bad := range []string{"/..", "/."} {
			if strings.HasSuffix(path, bad) {
				errs = append(errs, field.Invalid(p.Child("path"), path, "cannot end with '"+bad+"'"))
			}
		}
	}
	return append(errs, validateIngressBackend(&hp.Backend, p.Child("backend"))...)
}

// validateIngressBackend wants exactly one of service and resource, and a
// service port by name or by number.
func validateIngressBackend(b *networkingv1.IngressBackend, p *field.Path) field.ErrorList {
	switch {
	case b.Service != nil && b.Resource != nil:
		return field.ErrorList{field.Invalid(p, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		var errs field.ErrorList
		if b.Resource.Kind == "" {
			errs = append(errs, field.Required(p.Child("resource", "kind"), ""))
		}
		if b.Resource.Name == "" {
			errs = append(errs, field.Required(p.Child("resource", "name"), ""))
		}
		return errs
	case b.Service == nil:
		return field.ErrorList{field.Invalid(p, "", "resource or service backend is required")}
	}
	sp := p.Child("service")
	errs := invalidEach(sp.Child("name"), b.Service.Name, apivalidation.NameIsDNS1035Label(b.Service.Name, false))
	port := b.Service.Port
	switch {
	case port.Name != "" && port.Number != 0:
		errs = append(errs, field.Invalid(sp.Child("port"), port, "cannot set both port name & port number"))
	case port.Name != "":
		errs = append(errs, invalidEach(sp.Child("port", "name"), port.Name, validation.IsValidPortName(port.Name))...)
	default:
		errs = append(errs, invalidEach(sp.Child("port", "number"), port.Number, validation.IsValidPortNum(int(port.Number)))...)
	}
	return errs
}

func validateIngressClass(ic *networkingv1.IngressClass) field.ErrorList {
	cp := specPath.Child("controller")
	var errs field.ErrorList
	switch c := ic.Spec.Controller; {
	case c == "":
		errs = append(errs, field.Required(cp, ""))
	case len(c) > 250:
		errs = append(errs, field.TooLong(cp, "", 250))
	default:
		errs = append(errs, validation.IsDomainPrefixedPath(cp, c)...)
	}
	if pr := ic.Spec.Parameters; pr != nil {
		pp := specPath.Child("parameters")
		if pr.Kind == "" {
			errs = append(errs, field.Required(pp.Child("kind"), ""))
		}
		if pr.Name == "" {
			errs = append(errs, field.Required(pp.Child("name"), ""))
		}
		scope := "Cluster"
		if pr.Scope != nil {
			scope = *pr.Scope
		}
		errs = append(errs, oneOf(scope, []string{"Cluster", "Namespace"}, pp.Child("scope"))...)
		if (scope == "Namespace") != (pr.Namespace != nil) {
			errs = append(errs, field.Required(pp.Child("namespace"), "`parameters.namespace` is required when scope is Namespace and forbidden otherwise"))
		}
	}
	return errs
}
