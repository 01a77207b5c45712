package api

import (
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// The apiextensions.k8s.io/v1 types are the k8s.io/apiextensions-apiserver
// module's API types alone (types, deep copies, defaults); none of its
// server library is linked.
func init() {
	addLater(func(s *runtime.Scheme) {
		utilruntime.Must(apiextv1.AddToScheme(s))
		metav1.AddToGroupVersion(s, apiextv1.SchemeGroupVersion)
	})
	register(&Resource{Group: apiextv1.GroupName, Version: "v1", Name: "customresourcedefinitions",
		Singular: "customresourcedefinition", Kind: "CustomResourceDefinition", ShortNames: []string{"crd", "crds"},
		Categories: []string{"api-extensions"}, Subresources: []string{"status"}, Generation: true,
		newObject: func() Object { return &apiextv1.CustomResourceDefinition{} },
		newList:   func() runtime.Object { return &apiextv1.CustomResourceDefinitionList{} }},
		Rules{Default: defaultCRD, Validate: validateCRD, ValidateUpdate: validateCRDUpdate,
			Fields: func(Object, fields.Set) {}})
}

// defaultCRD sets upstream's defaults: conversion strategy None, the
// singular and list kind names, the stored version.
func defaultCRD(obj Object) {
	apiextv1.SetObjectDefaults_CustomResourceDefinition(obj.(*apiextv1.CustomResourceDefinition))
}

// StorageVersion is the CRD's version with storage: true ("" without one).
func StorageVersion(crd *apiextv1.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// CRDCondition returns the CRD's condition of type t, or nil.
func CRDCondition(crd *apiextv1.CustomResourceDefinition, t apiextv1.CustomResourceDefinitionConditionType) *apiextv1.CustomResourceDefinitionCondition {
	for i := range crd.Status.Conditions {
		if crd.Status.Conditions[i].Type == t {
			return &crd.Status.Conditions[i]
		}
	}
	return nil
}

// SetCRDCondition sets (adds or replaces) a condition, keeping its
// transition time when the status does not change.
func SetCRDCondition(crd *apiextv1.CustomResourceDefinition, c apiextv1.CustomResourceDefinitionCondition) {
	if old := CRDCondition(crd, c.Type); old != nil {
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		*old = c
		return
	}
	crd.Status.Conditions = append(crd.Status.Conditions, c)
}

// CreateWarnings are Warning headers for a new object: a CRD whose
// schemas carry CEL rules (x-kubernetes-validations) is told that bramble
// does not evaluate them yet.
func CreateWarnings(obj Object) []string {
	crd, ok := obj.(*apiextv1.CustomResourceDefinition)
	if !ok {
		return nil
	}
	for _, v := range crd.Spec.Versions {
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil && hasCELRules(v.Schema.OpenAPIV3Schema) {
			return []string{"spec.versions[" + v.Name + "]: x-kubernetes-validations (CEL) rules are stored but not evaluated by bramble yet (see docs/API.md)"}
		}
	}
	return nil
}

func hasCELRules(s *apiextv1.JSONSchemaProps) bool {
	if len(s.XValidations) > 0 {
		return true
	}
	for _, p := range s.Properties {
		if hasCELRules(&p) {
			return true
		}
	}
	if s.Items != nil && s.Items.Schema != nil && hasCELRules(s.Items.Schema) {
		return true
	}
	return s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil && hasCELRules(s.AdditionalProperties.Schema)
}
