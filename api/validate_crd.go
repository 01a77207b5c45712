package api

import (
	"fmt"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateCRD checks a CustomResourceDefinition with upstream's rules:
// the name is plural.group, names are DNS labels, the scope is known,
// exactly one version is stored, schemas are structural.
func validateCRD(obj Object) field.ErrorList {
	crd := obj.(*apiextv1.CustomResourceDefinition)
	spec, p := &crd.Spec, field.NewPath("spec")
	var errs field.ErrorList
	if want := spec.Names.Plural + "." + spec.Group; crd.Name != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), crd.Name,
			`must be spec.names.plural+"."+spec.group`))
	}
	errs = append(errs, validateCRDGroup(spec.Group, p.Child("group"))...)
	errs = append(errs, validateAPIApproval(crd)...)
	switch spec.Scope {
	case apiextv1.ClusterScoped, apiextv1.NamespaceScoped:
	case "":
		errs = append(errs, field.Required(p.Child("scope"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("scope"), spec.Scope, []string{"Cluster", "Namespaced"}))
	}
	errs = append(errs, validateCRDNames(&spec.Names, p.Child("names"))...)
	errs = append(errs, validateCRDConversion(spec.Conversion, p.Child("conversion"))...)
	errs = append(errs, validateCRDVersions(spec.Versions, p.Child("versions"))...)
	if spec.PreserveUnknownFields {
		errs = append(errs, field.Invalid(p.Child("preserveUnknownFields"), true, "must be false in order to use defaults in the schema"))
	}
	return append(errs, validateStoredVersions(crd)...)
}

// validateStoredVersions: every stored version is still a version (drop
// one from status.storedVersions first). The storage version is added to
// them when the CRD is established.
func validateStoredVersions(crd *apiextv1.CustomResourceDefinition) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("status", "storedVersions")
	for i, v := range crd.Status.StoredVersions {
		if crdVersion(crd, v) == nil {
			errs = append(errs, field.Invalid(p.Index(i), v, "must appear in spec.versions"))
		}
	}
	return errs
}

func validateCRDGroup(group string, p *field.Path) field.ErrorList {
	if group == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(group) {
		errs = append(errs, field.Invalid(p, group, msg))
	}
	if !strings.Contains(group, ".") {
		errs = append(errs, field.Invalid(p, group, "should be a domain with at least one dot"))
	}
	return errs
}

// apiApprovedAnnotation marks a CRD of a protected group (*.k8s.io,
// *.kubernetes.io) as approved by Kubernetes' API review.
const apiApprovedAnnotation = "api-approved.kubernetes.io"

// validateAPIApproval: protected groups need the approval annotation, as
// upstream requires.
func validateAPIApproval(crd *apiextv1.CustomResourceDefinition) field.ErrorList {
	g := crd.Spec.Group
	protected := g == "k8s.io" || g == "kubernetes.io" || strings.HasSuffix(g, ".k8s.io") || strings.HasSuffix(g, ".kubernetes.io")
	if !protected || crd.Annotations[apiApprovedAnnotation] != "" {
		return nil
	}
	return field.ErrorList{field.Required(field.NewPath("metadata", "annotations").Key(apiApprovedAnnotation),
		`protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`)}
}

// validateCRDNames: plural, singular, short names and categories are
// lowercase DNS labels; kind and listKind name lowercase to one.
func validateCRDNames(n *apiextv1.CustomResourceDefinitionNames, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	label := func(v string, fp *field.Path, required bool) {
		if v == "" {
			if required {
				errs = append(errs, field.Required(fp, ""))
			}
			return
		}
		if msgs := validation.IsDNS1035Label(v); len(msgs) > 0 {
			errs = append(errs, field.Invalid(fp, v, strings.Join(msgs, ",")))
		}
	}
	label(n.Plural, p.Child("plural"), true)
	label(n.Singular, p.Child("singular"), false)
	label(strings.ToLower(n.Kind), p.Child("kind"), true)
	label(strings.ToLower(n.ListKind), p.Child("listKind"), true)
	if n.Kind != "" && n.Kind == n.ListKind {
		errs = append(errs, field.Invalid(p.Child("listKind"), n.ListKind, "kind and listKind may not be the same"))
	}
	for i, s := range n.ShortNames {
		label(s, p.Child("shortNames").Index(i), true)
	}
	for i, c := range n.Categories {
		label(c, p.Child("categories").Index(i), true)
	}
	return errs
}

// validateCRDConversion accepts the None strategy; conversion webhooks
// are refused until bramble calls webhooks.
func validateCRDConversion(c *apiextv1.CustomResourceConversion, p *field.Path) field.ErrorList {
	if c == nil {
		return nil
	}
	switch c.Strategy {
	case apiextv1.NoneConverter:
		if c.Webhook != nil {
			return field.ErrorList{field.Forbidden(p.Child("webhook"), "should not be set when strategy is not set to Webhook")}
		}
		return nil
	case apiextv1.WebhookConverter:
		return field.ErrorList{field.Invalid(p.Child("strategy"), c.Strategy,
			"conversion webhooks are not supported by bramble yet; use None (all versions share one schema shape)")}
	}
	return field.ErrorList{field.NotSupported(p.Child("strategy"), c.Strategy, []string{"None", "Webhook"})}
}

// validateCRDVersions: at least one, unique DNS-label names, exactly one
// stored, each with a structural schema and valid columns and fields.
func validateCRDVersions(vs []apiextv1.CustomResourceDefinitionVersion, p *field.Path) field.ErrorList {
	if len(vs) == 0 {
		return field.ErrorList{field.Invalid(p, vs, "must have exactly one version marked as storage version")}
	}
	var errs field.ErrorList
	seen, stored := sets.New[string](), 0
	for i := range vs {
		v, vp := &vs[i], p.Index(i)
		if msgs := validation.IsDNS1035Label(v.Name); len(msgs) > 0 {
			errs = append(errs, field.Invalid(vp.Child("name"), v.Name, strings.Join(msgs, ",")))
		}
		if seen.Has(v.Name) {
			errs = append(errs, field.Invalid(vp.Child("name"), v.Name, "must appear only once"))
		}
		seen.Insert(v.Name)
		if v.Storage {
			stored++
		}
		errs = append(errs, validateCRDVersion(v, vp)...)
	}
	if stored != 1 {
		errs = append(errs, field.Invalid(p, fmt.Sprintf("%d storage versions", stored),
			"must have exactly one version marked as storage version"))
	}
	return errs
}

func validateCRDVersion(v *apiextv1.CustomResourceDefinitionVersion, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	sp := p.Child("schema", "openAPIV3Schema")
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		errs = append(errs, field.Required(sp, "schemas are required"))
	} else {
		errs = append(errs, validateStructural(v.Schema.OpenAPIV3Schema, sp, true)...)
	}
	errs = append(errs, validateCRDColumns(v.AdditionalPrinterColumns, p.Child("additionalPrinterColumns"))...)
	if len(v.SelectableFields) > 8 {
		errs = append(errs, field.TooMany(p.Child("selectableFields"), len(v.SelectableFields), 8))
	}
	for i, f := range v.SelectableFields {
		if !strings.HasPrefix(f.JSONPath, ".") {
			errs = append(errs, field.Invalid(p.Child("selectableFields").Index(i).Child("jsonPath"), f.JSONPath, "must be a simple json path starting with ."))
		}
	}
	if sc := v.Subresources; sc != nil && sc.Scale != nil {
		errs = append(errs, validateScalePaths(sc.Scale, p.Child("subresources", "scale"))...)
	}
	return errs
}
