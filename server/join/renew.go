package join

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	kjson "sigs.k8s.io/json"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/pki"
)

// RenewPath is where RenewHandler is mounted.
const RenewPath = nodejoin.RenewPath

// CertChecker says whether a certificate may renew, and records a renewed
// one (*NodeCertRegistry; see registry_renewal.go for why a certificate
// just replaced by a renewal may renew again).
type CertChecker interface {
	CheckRenewal(node string, cert *x509.Certificate) error
	RecordRenewal(ctx context.Context, node string, cert *x509.Certificate, from *big.Int) error
}

// RenewConfig holds what the renewal endpoint needs. CA and Certs are
// required.
type RenewConfig struct {
	CA            CertSigner
	Certs         CertChecker
	MQTTAddresses func() []string // nil: none
	Logger        *slog.Logger    // default slog.Default()
	// CertValidity is the lifetime of renewed certificates; default one
	// year.
	CertValidity time.Duration
}

// RenewHandler answers POST nodejoin.RenewPath: a node that presents its
// current certificate (verified by the TLS layer against the cluster CA,
// and current by the registry) gets a certificate for the key of its CSR,
// under the same name; the registry then holds only the new one (and the
// asking one, for renewal only, until the new one is used). Mount it
// ahead of authentication, beside Handler.
func RenewHandler(cfg RenewConfig) (http.Handler, error) {
	if cfg.CA == nil || cfg.Certs == nil {
		return nil, errors.New("renew handler: CA and Certs are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.CertValidity <= 0 {
		cfg.CertValidity = 365 * 24 * time.Hour
	}
	if cfg.MQTTAddresses == nil {
		cfg.MQTTAddresses = func() []string { return nil }
	}
	return &renewer{cfg: cfg}, nil
}

type renewer struct{ cfg RenewConfig }

func (h *renewer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	node, from, code, msg := h.caller(r)
	if code == http.StatusOK {
		code, msg = h.check(r)
	}
	if code != http.StatusOK {
		h.fail(w, r, code, msg)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "read request body: "+err.Error())
		return
	}
	csr, err := DecodeRenewRequest(body)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err.Error())
		return
	}
	resp, err := h.renew(r, node, from, csr)
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(resp)
}

// caller is the node whose certificate came with r, and that
// certificate's serial.
func (h *renewer) caller(r *http.Request) (string, *big.Int, int, string) {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 {
		return "", nil, http.StatusUnauthorized, "renewal needs the node's current certificate (mutual TLS)"
	}
	cert := r.TLS.VerifiedChains[0][0]
	node, ok := strings.CutPrefix(cert.Subject.CommonName, nodejoin.NodeUserPrefix)
	if !ok || node == "" || !slices.Contains(cert.Subject.Organization, nodejoin.NodeGroup) {
		return "", nil, http.StatusForbidden, fmt.Sprintf("certificate %q is not a node certificate", cert.Subject.CommonName)
	}
	if err := h.cfg.Certs.CheckRenewal(node, cert); err != nil {
		return "", nil, http.StatusUnauthorized, err.Error()
	}
	return node, cert.SerialNumber, http.StatusOK, ""
}

func (h *renewer) check(r *http.Request) (int, string) {
	if r.Method != http.MethodPost {
		return http.StatusMethodNotAllowed, r.Method + " is not supported on " + r.URL.Path + "; use POST"
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q: want application/json", r.Header.Get("Content-Type"))
	}
	return http.StatusOK, ""
}

func (h *renewer) renew(r *http.Request, node string, from *big.Int, csr *x509.CertificateRequest) (*nodejoin.Response, error) {
	certPEM, err := h.cfg.CA.SignClientCert(csr, nodejoin.NodeUserPrefix+node, []string{nodejoin.NodeGroup}, h.cfg.CertValidity)
	if err != nil {
		return nil, fmt.Errorf("sign certificate of node %s: %w", node, err)
	}
	cert, err := parseCertPEM(certPEM)
	if err != nil {
		return nil, err
	}
	if err := h.cfg.Certs.RecordRenewal(r.Context(), node, cert, from); err != nil {
		return nil, err
	}
	h.cfg.Logger.Info("node certificate renewed", "node", node, "addr", r.RemoteAddr,
		"serial", cert.SerialNumber.Text(16), "notAfter", cert.NotAfter)
	addrs := h.cfg.MQTTAddresses()
	if addrs == nil {
		addrs = []string{}
	}
	return &nodejoin.Response{Certificate: string(certPEM), CA: string(h.cfg.CA.BundlePEM()), MQTTAddresses: addrs}, nil
}

func (h *renewer) fail(w http.ResponseWriter, r *http.Request, code int, msg string) {
	reason := nodejoin.ReasonBadRequest
	switch code {
	case http.StatusUnauthorized:
		reason = "Unauthorized"
	case http.StatusForbidden:
		reason = "Forbidden"
	case http.StatusInternalServerError:
		reason = nodejoin.ReasonInternal
	}
	writeStatus(w, code, reason, msg)
	h.cfg.Logger.Warn("certificate renewal refused", "addr", r.RemoteAddr, "code", code, "msg", msg)
}

// DecodeRenewRequest reads the body of POST RenewPath strictly: one JSON
// object with exactly the field csr, a CSR whose signature verifies, for a
// key type node certificates may hold. The error names the field.
func DecodeRenewRequest(data []byte) (*x509.CertificateRequest, error) {
	var req nodejoin.RenewRequest
	strict, err := kjson.UnmarshalStrict(data, &req)
	if err != nil {
		return nil, fmt.Errorf("request body: %v", err)
	}
	if len(strict) > 0 {
		return nil, fmt.Errorf("request body: %v", errors.Join(strict...))
	}
	if req.CSR == "" {
		return nil, errors.New("csr: required")
	}
	csr, err := pki.ParseCSRPEM([]byte(req.CSR))
	if err != nil {
		return nil, fmt.Errorf("csr: %v", err)
	}
	if err := checkKey(csr.PublicKey); err != nil {
		return nil, fmt.Errorf("csr: %v", err)
	}
	return csr, nil
}
