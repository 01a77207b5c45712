package api

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
)

// CSRStoredOnly is what bramble does not yet do with CSRs: only the
// kube-apiserver-client signer runs (server/certificates).
const CSRStoredOnly = "only approved requests for signer kubernetes.io/kube-apiserver-client are signed; other signers' are stored without a certificate"

func init() {
	addServedGroup(certificatesv1.AddToScheme, certificatesv1.SchemeGroupVersion)
	register(&Resource{Group: certificatesv1.GroupName, Version: "v1", Name: "certificatesigningrequests",
		Singular: "certificatesigningrequest", Kind: "CertificateSigningRequest", ShortNames: []string{"csr"},
		Subresources: []string{"status", "approval"}, StoredOnly: CSRStoredOnly,
		newObject: func() Object { return &certificatesv1.CertificateSigningRequest{} },
		newList:   func() runtime.Object { return &certificatesv1.CertificateSigningRequestList{} }},
		// server/certificates keeps the spec as created on updates.
		Rules{Default: defaultCSR, Validate: validateCSR, ValidateStatus: validateCSRStatus, Fields: csrFields})
}

// defaultCSR gives a condition without a status the status True, as
// upstream's v1 defaults do (kubectl certificate approve sends none).
func defaultCSR(obj Object) {
	csr := obj.(*certificatesv1.CertificateSigningRequest)
	for i := range csr.Status.Conditions {
		if csr.Status.Conditions[i].Status == "" {
			csr.Status.Conditions[i].Status = corev1.ConditionTrue
		}
	}
}

func csrFields(obj Object, set fields.Set) {
	set["spec.signerName"] = obj.(*certificatesv1.CertificateSigningRequest).Spec.SignerName
}

// CSRCondition returns csr's condition of type t, or nil.
func CSRCondition(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) *certificatesv1.CertificateSigningRequestCondition {
	for i := range csr.Status.Conditions {
		if csr.Status.Conditions[i].Type == t {
			return &csr.Status.Conditions[i]
		}
	}
	return nil
}
