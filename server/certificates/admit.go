// Package certificates is the server side of certificates.k8s.io:
// admission of CertificateSigningRequests (who asked, what an approval or
// a status write may change) and the signer of approved client requests.
package certificates

import (
	"context"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// Admission records a new request's requestor and keeps each kind of
// write to its part, as upstream's strategies do:
//
//   - create: spec.username, uid, groups and extra are the authenticated
//     user's, whatever the client sent (writes the server makes itself,
//     with no user, keep theirs);
//   - update: spec is kept as created;
//   - approval: only the conditions change (status.certificate is kept);
//   - status: the Approved and Denied conditions are kept (only an
//     approval writes them) and an issued certificate never changes.
type Admission struct {
	Now func() time.Time
}

var _ registry.Admitter = (*Admission)(nil)

// Admit applies the rules above to writes of CertificateSigningRequests.
func (a *Admission) Admit(ctx context.Context, attrs *registry.Attributes) (func(bool), error) {
	csr, ok := attrs.Object.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return nil, nil
	}
	if attrs.Create() {
		if u, ok := registry.UserFrom(ctx); ok {
			csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups, csr.Spec.Extra = u.Name, u.UID, u.Groups, nil
		}
		return nil, nil
	}
	old := attrs.Old.(*certificatesv1.CertificateSigningRequest)
	switch attrs.Subresource {
	case "":
		csr.Spec = *old.Spec.DeepCopy()
	case "approval":
		csr.Status.Certificate = old.Status.Certificate
		a.stampConditions(csr, old)
	case "status":
		keepApproval(csr, old)
		if len(old.Status.Certificate) > 0 && string(old.Status.Certificate) != string(csr.Status.Certificate) {
			return nil, apierrors.NewInvalid(attrs.Resource.GroupKind(), csr.Name, field.ErrorList{
				field.Forbidden(field.NewPath("status", "certificate"), "updates may not modify existing certificate content")})
		}
		a.stampConditions(csr, old)
	}
	return nil, nil
}

// keepApproval puts old's Approved and Denied conditions back in csr.
func keepApproval(csr, old *certificatesv1.CertificateSigningRequest) {
	approval := map[certificatesv1.RequestConditionType]bool{
		certificatesv1.CertificateApproved: true, certificatesv1.CertificateDenied: true}
	var conds []certificatesv1.CertificateSigningRequestCondition
	for _, c := range csr.Status.Conditions {
		if !approval[c.Type] {
			conds = append(conds, c)
		}
	}
	for _, c := range old.Status.Conditions {
		if approval[c.Type] {
			conds = append(conds, c)
		}
	}
	csr.Status.Conditions = conds
}

// stampConditions fills lastUpdateTime when a client left it out, and
// lastTransitionTime when a condition is new or its status changed.
func (a *Admission) stampConditions(csr, old *certificatesv1.CertificateSigningRequest) {
	now := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	if a.Now != nil {
		now = metav1.NewTime(a.Now().UTC().Truncate(time.Second))
	}
	for i := range csr.Status.Conditions {
		c := &csr.Status.Conditions[i]
		if c.LastUpdateTime.IsZero() {
			c.LastUpdateTime = now
		}
		prev := api.CSRCondition(old, c.Type)
		if prev == nil || prev.Status != c.Status {
			c.LastTransitionTime = now
		} else if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = prev.LastTransitionTime
		}
	}
}
