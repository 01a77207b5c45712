package join

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"strconv"

	nodejoin "github.com/bramble-edge/bramble/join"
)

// serveJoin answers POST /v1-bramble/join.
func (h *handler) serveJoin(w http.ResponseWriter, r *http.Request) {
	addr := sourceAddr(r)
	body, ok := h.admit(w, r, addr)
	if !ok {
		return
	}
	resp, err := h.join(r, body)
	if err != nil {
		if isTokenFailure(err) {
			h.limiter.fail(addr)
		}
		code, reason, msg := failure(err)
		h.fail(w, r, code, reason, msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(resp)
}

// admit checks method, content type and the caller's failure budget and
// reads the body; when it returns false it has answered already.
func (h *handler) admit(w http.ResponseWriter, r *http.Request, addr string) ([]byte, bool) {
	if r.Method != http.MethodPost {
		h.fail(w, r, http.StatusMethodNotAllowed, nodejoin.ReasonBadRequest, r.Method+" is not supported on "+r.URL.Path+"; use POST")
		return nil, false
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		h.fail(w, r, http.StatusUnsupportedMediaType, nodejoin.ReasonBadRequest,
			fmt.Sprintf("Content-Type %q: want application/json", r.Header.Get("Content-Type")))
		return nil, false
	}
	if wait := h.limiter.wait(addr); wait > 0 {
		secs := int(math.Ceil(wait.Seconds()))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		h.fail(w, r, http.StatusTooManyRequests, nodejoin.ReasonTooManyRequests,
			fmt.Sprintf("too many failed join attempts from %s; try again in %ds", addr, secs))
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.MaxBodyBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		h.fail(w, r, http.StatusRequestEntityTooLarge, nodejoin.ReasonBadRequest,
			fmt.Sprintf("request body larger than %d bytes", h.cfg.MaxBodyBytes))
		return nil, false
	case err != nil:
		h.fail(w, r, http.StatusBadRequest, nodejoin.ReasonBadRequest, "read request body: "+err.Error())
		return nil, false
	}
	return body, true
}

// join checks the request, the token and the node password (a name once
// joined is refused to anyone without its password, before anything is
// signed), signs the node certificate and records it.
func (h *handler) join(r *http.Request, body []byte) (*nodejoin.Response, error) {
	req, csr, err := DecodeJoinRequest(body)
	if err != nil {
		return nil, err
	}
	noteAudit(r.Context(), req)
	tok, err := h.cfg.Tokens.Check(r.Context(), req.TokenID, req.Secret)
	if err != nil {
		return nil, err
	}
	if err := h.cfg.Passwords.Ensure(r.Context(), req.NodeName, req.NodePassword, tok); err != nil {
		return nil, err
	}
	certPEM, err := h.cfg.CA.SignClientCert(csr, nodejoin.NodeUserPrefix+req.NodeName,
		[]string{nodejoin.NodeGroup}, h.cfg.CertValidity)
	if err != nil {
		return nil, fmt.Errorf("sign certificate of node %s: %w", req.NodeName, err)
	}
	cert, err := parseCertPEM(certPEM)
	if err != nil {
		return nil, err
	}
	if err := h.cfg.Certs.Record(r.Context(), req.NodeName, cert); err != nil {
		return nil, err
	}
	h.cfg.Logger.Info("node joined", "node", req.NodeName, "token", req.TokenID, "addr", r.RemoteAddr,
		"serial", cert.SerialNumber.Text(16), "notAfter", cert.NotAfter)
	addrs := h.cfg.MQTTAddresses()
	if addrs == nil {
		addrs = []string{}
	}
	return &nodejoin.Response{Certificate: string(certPEM), CA: string(h.cfg.CA.BundlePEM()), MQTTAddresses: addrs}, nil
}

// isTokenFailure reports whether err is a refused token or node password,
// the failures the limiter counts.
func isTokenFailure(err error) bool {
	return errors.Is(err, nodejoin.ErrTokenSecret) || errors.Is(err, nodejoin.ErrTokenExpired) ||
		errors.Is(err, nodejoin.ErrTokenNotFound) || errors.Is(err, nodejoin.ErrNodePassword)
}

// sourceAddr is the client's IP address (forwarding headers are not
// trusted: the API server is reached directly).
func sourceAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func writeStatus(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(&nodejoin.Status{Kind: "Status", APIVersion: "v1", Status: "Failure",
		Message: msg, Reason: reason, Code: code})
}

func parseCertPEM(data []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("signed node certificate: no PEM CERTIFICATE block")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("signed node certificate: %w", err)
	}
	return cert, nil
}
