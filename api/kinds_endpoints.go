package api

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The controllers of controllers/endpoints fill both from pods; each
// node's service proxy and cluster DNS route and answer by the slices
// (docs/SERVICES.md), so neither kind is stored only.

func init() {
	register(&Resource{Version: "v1", Name: "endpoints", Singular: "endpoints", Kind: "Endpoints",
		Namespaced: true, ShortNames: []string{"ep"},
		newObject: func() Object { return &corev1.Endpoints{} },
		newList:   func() runtime.Object { return &corev1.EndpointsList{} }},
		Rules{
			Default:  func(o Object) { defaultEndpoints(o.(*corev1.Endpoints)) },
			Validate: func(o Object) field.ErrorList { return validateEndpoints(o.(*corev1.Endpoints)) },
		})
	register(&Resource{Group: "discovery.k8s.io", Version: "v1", Name: "endpointslices", Singular: "endpointslice",
		Kind: "EndpointSlice", Namespaced: true,
		newObject: func() Object { return &discoveryv1.EndpointSlice{} },
		newList:   func() runtime.Object { return &discoveryv1.EndpointSliceList{} }},
		Rules{
			Default:  func(o Object) { defaultEndpointSlice(o.(*discoveryv1.EndpointSlice)) },
			Validate: func(o Object) field.ErrorList { return validateEndpointSlice(o.(*discoveryv1.EndpointSlice)) },
			ValidateUpdate: func(o, old Object) field.ErrorList {
				return immutable(o.(*discoveryv1.EndpointSlice).AddressType, old.(*discoveryv1.EndpointSlice).AddressType,
					field.NewPath("addressType"))
			},
		})
}

func defaultEndpoints(e *corev1.Endpoints) {
	for i := range e.Subsets {
		for j := range e.Subsets[i].Ports {
			if e.Subsets[i].Ports[j].Protocol == "" {
				e.Subsets[i].Ports[j].Protocol = corev1.ProtocolTCP
			}
		}
	}
}

func validateEndpoints(e *corev1.Endpoints) field.ErrorList {
	var errs field.ErrorList
	for i, ss := range e.Subsets {
		sp := field.NewPath("subsets").Index(i)
		for j, a := range ss.Addresses {
			errs = append(errs, validateEndpointAddress(a, sp.Child("addresses").Index(j))...)
		}
		for j, a := range ss.NotReadyAddresses {
			errs = append(errs, validateEndpointAddress(a, sp.Child("notReadyAddresses").Index(j))...)
		}
		for j, p := range ss.Ports {
			pp := sp.Child("ports").Index(j)
			if len(ss.Ports) > 1 && p.Name == "" {
				errs = append(errs, field.Required(pp.Child("name"), ""))
			} else if p.Name != "" {
				errs = append(errs, invalidEach(pp.Child("name"), p.Name, validation.IsDNS1123Label(p.Name))...)
			}
			errs = append(errs, invalidEach(pp.Child("port"), p.Port, validation.IsValidPortNum(int(p.Port)))...)
			errs = append(errs, oneOf(p.Protocol, serviceProtocols, pp.Child("protocol"))...)
		}
	}
	return errs
}

func validateEndpointAddress(a corev1.EndpointAddress, p *field.Path) field.ErrorList {
	errs := validation.IsValidIP(p.Child("ip"), a.IP)
	if a.Hostname != "" {
		errs = append(errs, invalidEach(p.Child("hostname"), a.Hostname, validation.IsDNS1123Label(a.Hostname))...)
	}
	if a.NodeName != nil {
		errs = append(errs, invalidEach(p.Child("nodeName"), *a.NodeName, validation.IsDNS1123Subdomain(*a.NodeName))...)
	}
	return errs
}

func defaultEndpointSlice(s *discoveryv1.EndpointSlice) {
	for i := range s.Ports {
		if s.Ports[i].Protocol == nil {
			s.Ports[i].Protocol = ptrTo(corev1.ProtocolTCP)
		}
	}
}

var addressTypes = []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN}

// Upstream's limits on one EndpointSlice.
const (
	maxSliceEndpoints = 1000
	maxSliceAddresses = 100
	maxSlicePorts     = 20000
)

func validateEndpointSlice(s *discoveryv1.EndpointSlice) field.ErrorList {
	errs := oneOf(s.AddressType, addressTypes, field.NewPath("addressType"))
	ep := field.NewPath("endpoints")
	if len(s.Endpoints) > maxSliceEndpoints {
		errs = append(errs, field.TooMany(ep, len(s.Endpoints), maxSliceEndpoints))
	}
	for i, e := range s.Endpoints {
		ap := ep.Index(i).Child("addresses")
		if len(e.Addresses) == 0 || len(e.Addresses) > maxSliceAddresses {
			errs = append(errs, field.Invalid(ap, len(e.Addresses), fmt.Sprintf("must have between 1 and %d addresses", maxSliceAddresses)))
		}
		for j, a := range e.Addresses {
			errs = append(errs, validateSliceAddress(s.AddressType, a, ap.Index(j))...)
		}
		if e.Hostname != nil {
			errs = append(errs, invalidEach(ep.Index(i).Child("hostname"), *e.Hostname, validation.IsDNS1123Label(*e.Hostname))...)
		}
	}
	return append(errs, validateSlicePorts(s.Ports)...)
}

func validateSliceAddress(t discoveryv1.AddressType, a string, p *field.Path) field.ErrorList {
	switch t {
	case discoveryv1.AddressTypeIPv4:
		return validation.IsValidIPv4Address(p, a)
	case discoveryv1.AddressTypeIPv6:
		return validation.IsValidIPv6Address(p, a)
	case discoveryv1.AddressTypeFQDN:
		return validation.IsFullyQualifiedDomainName(p, a)
	}
	return nil
}

func validateSlicePorts(ports []discoveryv1.EndpointPort) field.ErrorList {
	var errs field.ErrorList
	pp, names := field.NewPath("ports"), sets.New[string]()
	if len(ports) > maxSlicePorts {
		errs = append(errs, field.TooMany(pp, len(ports), maxSlicePorts))
	}
	for i, p := range ports {
		name := ""
		if p.Name != nil {
			name = *p.Name
		}
		if name != "" {
			errs = append(errs, invalidEach(pp.Index(i).Child("name"), name, validation.IsDNS1123Label(name))...)
		}
		if names.Has(name) {
			errs = append(errs, field.Duplicate(pp.Index(i).Child("name"), name))
		}
		names.Insert(name)
		if p.Protocol != nil {
			errs = append(errs, oneOf(*p.Protocol, serviceProtocols, pp.Index(i).Child("protocol"))...)
		}
		if p.Port != nil && *p.Port != 0 {
			errs = append(errs, invalidEach(pp.Index(i).Child("port"), *p.Port, validation.IsValidPortNum(int(*p.Port)))...)
		}
	}
	return errs
}
