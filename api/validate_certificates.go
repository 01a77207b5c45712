package api

import (
	"crypto/x509"
	"encoding/pem"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The CSR rules follow upstream's (pkg/apis/certificates/validation):
// a PEM CERTIFICATE REQUEST, a signer name of the form domain/path, known
// key usages without duplicates, at least ten minutes of duration, and
// conditions where Approved and Denied exclude each other.

var knownUsages = sets.New("signing", "digital signature", "content commitment", "key encipherment",
	"key agreement", "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any",
	"server auth", "client auth", "code signing", "email protection", "s/mime", "ipsec end system",
	"ipsec tunnel", "ipsec user", "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc")

func validateCSR(obj Object) field.ErrorList {
	csr := obj.(*certificatesv1.CertificateSigningRequest)
	sp := field.NewPath("spec")
	errs := validateCSRRequest(csr.Spec.Request, sp.Child("request"))
	errs = append(errs, validateSignerName(csr.Spec.SignerName, sp.Child("signerName"))...)
	if len(csr.Spec.Usages) == 0 {
		errs = append(errs, field.Required(sp.Child("usages"), "usages must be provided"))
	}
	seen := sets.New[string]()
	for i, u := range csr.Spec.Usages {
		switch {
		case !knownUsages.Has(string(u)):
			errs = append(errs, field.NotSupported(sp.Child("usages").Index(i), u, sets.List(knownUsages)))
		case seen.Has(string(u)):
			errs = append(errs, field.Duplicate(sp.Child("usages").Index(i), u))
		}
		seen.Insert(string(u))
	}
	if s := csr.Spec.ExpirationSeconds; s != nil && *s < 600 {
		errs = append(errs, field.Invalid(sp.Child("expirationSeconds"), *s, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	return append(errs, validateCSRStatus(obj)...)
}

func validateCSRRequest(req []byte, p *field.Path) field.ErrorList {
	block, _ := pem.Decode(req)
	if block == nil {
		return field.ErrorList{field.Invalid(p, "<request data>", "PEM block type must be CERTIFICATE REQUEST")}
	}
	if block.Type != "CERTIFICATE REQUEST" {
		return field.ErrorList{field.Invalid(p, "<request data>", "PEM block type must be CERTIFICATE REQUEST")}
	}
	if _, err := x509.ParseCertificateRequest(block.Bytes); err != nil {
		return field.ErrorList{field.Invalid(p, "<request data>", err.Error())}
	}
	return nil
}

func validateSignerName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if name == "kubernetes.io/legacy-unknown" {
		return field.ErrorList{field.Invalid(p, name, "the legacy signerName is not allowed via this API version")}
	}
	domain, rest, ok := strings.Cut(name, "/")
	if !ok || rest == "" {
		return field.ErrorList{field.Invalid(p, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(domain) {
		errs = append(errs, field.Invalid(p, name, "the domain part: "+msg))
	}
	if len(name) > 571 {
		errs = append(errs, field.TooLong(p, name, 571))
	}
	return errs
}

func validateCSRStatus(obj Object) field.ErrorList {
	csr := obj.(*certificatesv1.CertificateSigningRequest)
	p := field.NewPath("status", "conditions")
	var errs field.ErrorList
	seen := map[certificatesv1.RequestConditionType]bool{}
	for i, c := range csr.Status.Conditions {
		cp := p.Index(i)
		switch c.Type {
		case "":
			errs = append(errs, field.Required(cp.Child("type"), ""))
		case certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed:
			if seen[c.Type] {
				errs = append(errs, field.Duplicate(cp.Child("type"), c.Type))
			}
			seen[c.Type] = true
		}
		allowed := []string{string(corev1.ConditionTrue), string(corev1.ConditionFalse), string(corev1.ConditionUnknown)}
		if c.Type == certificatesv1.CertificateApproved || c.Type == certificatesv1.CertificateDenied {
			allowed = allowed[:1]
		}
		if !sets.New(allowed...).Has(string(c.Status)) {
			errs = append(errs, field.NotSupported(cp.Child("status"), c.Status, allowed))
		}
	}
	if seen[certificatesv1.CertificateApproved] && seen[certificatesv1.CertificateDenied] {
		errs = append(errs, field.Invalid(p, csr.Status.Conditions, "Approved and Denied conditions are mutually exclusive"))
	}
	return append(errs, validateIssuedCertificate(csr)...)
}

// validateIssuedCertificate: status.certificate, when set, is PEM
// certificates, and only an approved request that did not fail gets one.
func validateIssuedCertificate(csr *certificatesv1.CertificateSigningRequest) field.ErrorList {
	cert := csr.Status.Certificate
	if len(cert) == 0 {
		return nil
	}
	p := field.NewPath("status", "certificate")
	if CSRCondition(csr, certificatesv1.CertificateApproved) == nil || CSRCondition(csr, certificatesv1.CertificateFailed) != nil {
		return field.ErrorList{field.Invalid(p, "<certificate data>", "certificate may only be set if the request is Approved and not Failed")}
	}
	blocks := 0
	for rest := cert; ; blocks++ {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		if _, err := x509.ParseCertificate(block.Bytes); block.Type != "CERTIFICATE" || err != nil {
			return field.ErrorList{field.Invalid(p, "<certificate data>", "must contain only PEM CERTIFICATE blocks")}
		}
	}
	if blocks == 0 {
		return field.ErrorList{field.Invalid(p, "<certificate data>", "must contain at least one PEM CERTIFICATE block")}
	}
	return nil
}
