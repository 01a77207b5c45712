package tables

import (
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/bramble-edge/bramble/api"
)

func init() { queuePrinters(certificatesPrinters) }

func certificatesPrinters() {
	register("CertificateSigningRequest", csrCells, "Name", "string", "Age", "string", "SignerName", "string",
		"Requestor", "string", "RequestedDuration", "string", "Condition", "string")
	for k, v := range map[string]string{
		"SignerName": "The signer the request is addressed to.", "Requestor": "Name of the user who created the request.",
		"RequestedDuration": "Validity asked for (spec.expirationSeconds).",
		"Condition":         "Approved, Denied or Pending, then Failed and Issued when they apply.",
	} {
		columnHelp[k] = v
	}
}

func csrCells(obj api.Object, now time.Time) []any {
	csr := obj.(*certificatesv1.CertificateSigningRequest)
	requested := "<none>"
	if s := csr.Spec.ExpirationSeconds; s != nil {
		requested = duration.HumanDuration(time.Duration(*s) * time.Second)
	}
	return []any{csr.Name, age(csr.CreationTimestamp, now), orNone(csr.Spec.SignerName),
		csr.Spec.Username, requested, CSRConditionText(csr)}
}

// CSRConditionText is the CONDITION column: Denied, Approved or Pending,
// then ",Failed" and ",Issued" when they apply, as kubectl prints it.
func CSRConditionText(csr *certificatesv1.CertificateSigningRequest) string {
	text := "Pending"
	if api.CSRCondition(csr, certificatesv1.CertificateDenied) != nil {
		text = "Denied"
	} else if api.CSRCondition(csr, certificatesv1.CertificateApproved) != nil {
		text = "Approved"
	}
	if api.CSRCondition(csr, certificatesv1.CertificateFailed) != nil {
		text += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		text += ",Issued"
	}
	return text
}
