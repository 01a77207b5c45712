package certificates

import (
	"context"
	"os"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
	"github.com/bramble-edge/bramble/server/registry/registrytest"
)

func newRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg := registrytest.New(t)
	reg.Use(&Admission{})
	return reg
}

func testCSR(t *testing.T, name string) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	req, err := os.ReadFile("testdata/alice.csr")
	if err != nil {
		t.Fatal(err)
	}
	return &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: req, SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}, Username: "mallory", Groups: []string{"system:masters"}}}
}

var csrs = api.MustLookup("certificates.k8s.io", "v1", "certificatesigningrequests")

func condition(t certificatesv1.RequestConditionType) certificatesv1.CertificateSigningRequestCondition {
	return certificatesv1.CertificateSigningRequestCondition{Type: t, Status: corev1.ConditionTrue, Reason: "Test"}
}

// TestRequestorAndApproval: the requestor is the authenticated user; an
// approval writes conditions only; Approved and Denied exclude each other;
// a status write cannot approve, nor the spec change after create.
func TestRequestorAndApproval(t *testing.T) {
	reg := newRegistry(t)
	ctx := registry.WithUser(context.Background(), registry.UserInfo{Name: "alice", UID: "u-1", Groups: []string{"bramble:viewers"}})
	obj, err := reg.Create(ctx, csrs, "", testCSR(t, "a"), registry.WriteOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	csr := obj.(*certificatesv1.CertificateSigningRequest)
	if csr.Spec.Username != "alice" || csr.Spec.UID != "u-1" || strings.Join(csr.Spec.Groups, ",") != "bramble:viewers" {
		t.Fatalf("got requestor %q %q %v, want alice u-1 [bramble:viewers]", csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups)
	}
	both := csr.DeepCopy()
	both.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{
		condition(certificatesv1.CertificateApproved), condition(certificatesv1.CertificateDenied)}
	_, err = reg.Update(ctx, csrs, "", "a", "approval", both, false)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "Approved and Denied conditions are mutually exclusive") {
		t.Fatalf("approve and deny: got %v, want 422 naming both", err)
	}
	approve := csr.DeepCopy()
	approve.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Reason: "Test"}}
	approve.Spec.Username = "mallory"
	obj, err = reg.Update(ctx, csrs, "", "a", "approval", approve, false)
	if err != nil {
		t.Fatalf("approve: %v", err)
	}
	csr = obj.(*certificatesv1.CertificateSigningRequest)
	c := api.CSRCondition(csr, certificatesv1.CertificateApproved)
	if c == nil || c.Status != corev1.ConditionTrue || c.LastUpdateTime.IsZero() || csr.Spec.Username != "alice" {
		t.Fatalf("after approval got conditions %+v, username %q; want Approved True stamped, username alice", csr.Status.Conditions, csr.Spec.Username)
	}
	unapprove := csr.DeepCopy()
	unapprove.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{condition(certificatesv1.CertificateFailed)}
	obj, err = reg.Update(ctx, csrs, "", "a", "status", unapprove, false)
	if err != nil {
		t.Fatalf("status write: %v", err)
	}
	csr = obj.(*certificatesv1.CertificateSigningRequest)
	if api.CSRCondition(csr, certificatesv1.CertificateApproved) == nil || api.CSRCondition(csr, certificatesv1.CertificateFailed) == nil {
		t.Fatalf("a status write dropped Approved or lost Failed: %+v", csr.Status.Conditions)
	}
	respec := csr.DeepCopy()
	respec.Spec.SignerName = "example.com/other"
	obj, err = reg.Update(ctx, csrs, "", "a", "", respec, false)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if got := obj.(*certificatesv1.CertificateSigningRequest).Spec.SignerName; got != certificatesv1.KubeAPIServerClientSignerName {
		t.Fatalf("update of spec: got signer %q, want the spec kept", got)
	}
}
