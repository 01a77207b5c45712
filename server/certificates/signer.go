package certificates

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/registry"
)

// CA signs client certificates; *pki.PKI is one.
type CA interface {
	SignClientCert(csr *x509.CertificateRequest, name string, groups []string, ttl time.Duration) ([]byte, error)
}

// maxClientTTL caps what a request may ask for, as the CA's own leaves.
const maxClientTTL = 365 * 24 * time.Hour

// clientUsages are the key usages upstream's kube-apiserver-client signer
// allows; "client auth" is required.
var clientUsages = sets.New(certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment)

// Signer issues certificates for approved requests addressed to
// kubernetes.io/kube-apiserver-client, signed by the cluster CA, with the
// subject the request asks for (CN = user, O = groups): what the API's
// authenticator maps to a bramble role. Requests it cannot honour get a
// Failed condition. Other signers' requests are left alone.
type Signer struct {
	CA     CA
	Client *registry.Client
	Cache  *informer.Cache
	Log    *slog.Logger

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var csrResource = api.MustLookup(certificatesv1.GroupName, "v1", "certificatesigningrequests")

// Start watches requests and signs in the background until Stop.
func (s *Signer) Start(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(ctx)
	view := s.Cache.View()
	q := controllers.NewQueue(100*time.Millisecond, time.Minute)
	inf := view.Informer(csrResource)
	inf.AddHandler(controllers.EnqueueHandler(q))
	view.Start(ctx)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer view.Stop()
		controllers.RunWorkers(ctx, q, 1, s.Log, func(ctx context.Context, key string) error {
			obj, ok := inf.Get("", key)
			if !ok {
				return nil
			}
			return s.sync(ctx, obj.(*certificatesv1.CertificateSigningRequest))
		})
	}()
}

// Stop ends the signer and waits for it.
func (s *Signer) Stop() {
	if s.cancel != nil {
		s.cancel()
		s.wg.Wait()
	}
}

// sync signs csr when it is approved, addressed to the client signer and
// not yet issued, denied or failed.
func (s *Signer) sync(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) error {
	if csr.Spec.SignerName != certificatesv1.KubeAPIServerClientSignerName || len(csr.Status.Certificate) > 0 ||
		api.CSRCondition(csr, certificatesv1.CertificateApproved) == nil ||
		api.CSRCondition(csr, certificatesv1.CertificateDenied) != nil || api.CSRCondition(csr, certificatesv1.CertificateFailed) != nil {
		return nil
	}
	next := csr.DeepCopy()
	cert, reason := s.issue(csr)
	if reason != "" {
		next.Status.Conditions = append(next.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
			Type: certificatesv1.CertificateFailed, Status: corev1.ConditionTrue, Reason: "SignerValidationFailure",
			Message: reason, LastUpdateTime: metav1.Now()})
	}
	next.Status.Certificate = cert
	_, err := s.Client.UpdateStatus(ctx, next)
	return err
}

// checkUsages returns why csr's key usages cannot be honoured, or "".
func checkUsages(csr *certificatesv1.CertificateSigningRequest) string {
	for _, u := range csr.Spec.Usages {
		if !clientUsages.Has(u) {
			return fmt.Sprintf("usage %q is not allowed for signer %s", u, csr.Spec.SignerName)
		}
	}
	if !sets.New(csr.Spec.Usages...).Has(certificatesv1.UsageClientAuth) {
		return `usage "client auth" is required`
	}
	return ""
}

// issue returns the certificate for csr, or why it cannot be issued.
func (s *Signer) issue(csr *certificatesv1.CertificateSigningRequest) ([]byte, string) {
	if reason := checkUsages(csr); reason != "" {
		return nil, reason
	}
	block, _ := pem.Decode(csr.Spec.Request)
	if block == nil {
		return nil, "spec.request is not PEM"
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, "spec.request: " + err.Error()
	}
	cn := req.Subject.CommonName
	if cn == "" || strings.HasPrefix(cn, join.NodeUserPrefix) {
		return nil, fmt.Sprintf("subject common name %q is not allowed: nodes get their certificates by joining", cn)
	}
	ttl := maxClientTTL
	if e := csr.Spec.ExpirationSeconds; e != nil && time.Duration(*e)*time.Second < ttl {
		ttl = time.Duration(*e) * time.Second
	}
	cert, err := s.CA.SignClientCert(req, cn, req.Subject.Organization, ttl)
	if err != nil {
		return nil, err.Error()
	}
	return cert, ""
}
