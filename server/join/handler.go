package join

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	nodejoin "github.com/bramble-edge/bramble/join"
)

// TokenVerifier checks a presented join token and returns it (*TokenStore
// is one).
type TokenVerifier interface {
	Check(ctx context.Context, id, secret string) (*TokenInfo, error)
}

// CertSigner is the cluster CA as the join endpoint uses it (*pki.PKI):
// /cacerts answers CACertPEM (the CA the tokens name), join and renewal
// answers carry BundlePEM (every CA nodes should trust; the same during a
// CA rotation's first step plus the next CA).
type CertSigner interface {
	CACertPEM() []byte
	BundlePEM() []byte
	SignClientCert(csr *x509.CertificateRequest, name string, groups []string, ttl time.Duration) ([]byte, error)
}

// CertRecorder remembers the certificate issued to a node
// (*NodeCertRegistry).
type CertRecorder interface {
	Record(ctx context.Context, node string, cert *x509.Certificate) error
}

// PasswordChecker lets a node join under its name only with the password
// it first joined with, and only as far as the token's usages allow
// (*NodePasswords).
type PasswordChecker interface {
	Ensure(ctx context.Context, node, password string, token *TokenInfo) error
}

// HandlerConfig holds what the join endpoints need. Tokens, CA, Certs and
// Passwords are required; zero values of the rest get defaults.
type HandlerConfig struct {
	Tokens    TokenVerifier
	CA        CertSigner
	Certs     CertRecorder
	Passwords PasswordChecker
	// MQTTAddresses returns the broker URLs to give joining nodes; nil
	// gives none (no broker yet).
	MQTTAddresses func() []string
	Logger        *slog.Logger // default slog.Default()
	// MaxBodyBytes caps a join request; default 64 KiB.
	MaxBodyBytes int64
	// FailureBurst failed joins (bad, expired or unknown token) are allowed
	// per source address before it must wait FailureRefill per further
	// attempt. Defaults 10 and 6s.
	FailureBurst  int
	FailureRefill time.Duration
	// CertValidity is the lifetime of node certificates; default one year.
	CertValidity time.Duration
	Now          func() time.Time // default time.Now (rate limiting)
}

func (c *HandlerConfig) setDefaults() error {
	if c.Tokens == nil || c.CA == nil || c.Certs == nil || c.Passwords == nil {
		return errors.New("join handler: Tokens, CA, Certs and Passwords are required")
	}
	if c.MQTTAddresses == nil {
		c.MQTTAddresses = func() []string { return nil }
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 64 << 10
	}
	if c.FailureBurst <= 0 {
		c.FailureBurst = 10
	}
	if c.FailureRefill <= 0 {
		c.FailureRefill = 6 * time.Second
	}
	if c.CertValidity <= 0 {
		c.CertValidity = 365 * 24 * time.Hour
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

// handler serves the join endpoints.
type handler struct {
	cfg     HandlerConfig
	limiter *failureLimiter
}

// Handler returns the handler of GET /cacerts (the CA certificate, PEM, to
// anyone: a joining node checks it against its token's hash) and POST
// /v1-bramble/join (a node certificate in exchange for a valid token and a
// CSR). Mount it on the API server's port ahead of authentication; other
// paths answer 404.
func Handler(cfg HandlerConfig) (http.Handler, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	h := &handler{cfg: cfg, limiter: newFailureLimiter(cfg.FailureBurst, cfg.FailureRefill, cfg.Now)}
	mux := http.NewServeMux()
	mux.HandleFunc(nodejoin.CACertsPath, h.serveCACerts)
	mux.HandleFunc(nodejoin.JoinPath, h.serveJoin)
	return mux, nil
}

func (h *handler) serveCACerts(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.fail(w, r, http.StatusMethodNotAllowed, nodejoin.ReasonBadRequest, r.Method+" is not supported on "+r.URL.Path)
		return
	}
	w.Header().Set("Content-Type", "application/x-pem-file")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(h.cfg.CA.CACertPEM())
}

// Paths handled here, for a caller's router.
var Paths = []string{nodejoin.CACertsPath, nodejoin.JoinPath}

func (h *handler) fail(w http.ResponseWriter, r *http.Request, code int, reason, msg string) {
	writeStatus(w, code, reason, msg)
	level := slog.LevelWarn
	if code >= http.StatusInternalServerError {
		level = slog.LevelError
	}
	h.cfg.Logger.Log(r.Context(), level, "join refused", "path", r.URL.Path, "addr", r.RemoteAddr, "code", code, "reason", reason, "msg", msg)
}

// failure maps a join error to its HTTP answer.
func failure(err error) (int, string, string) {
	var je *nodejoin.Error
	if !errors.As(err, &je) {
		return http.StatusInternalServerError, nodejoin.ReasonInternal, fmt.Sprintf("join failed on the server: %v", err)
	}
	switch je.Kind {
	case nodejoin.ErrTokenSecret:
		return http.StatusUnauthorized, nodejoin.ReasonTokenSecret, je.Msg
	case nodejoin.ErrTokenExpired:
		return http.StatusUnauthorized, nodejoin.ReasonTokenExpired, je.Msg
	case nodejoin.ErrTokenNotFound:
		return http.StatusUnauthorized, nodejoin.ReasonTokenNotFound, je.Msg
	case nodejoin.ErrNodePassword:
		return http.StatusForbidden, nodejoin.ReasonNodePassword, je.Msg
	case nodejoin.ErrTokenUsage:
		return http.StatusForbidden, nodejoin.ReasonTokenUsage, je.Msg
	case nodejoin.ErrInvalidNodeName:
		return http.StatusUnprocessableEntity, nodejoin.ReasonInvalidNodeName, je.Msg
	case nodejoin.ErrRejected:
		return http.StatusBadRequest, nodejoin.ReasonBadRequest, je.Msg
	}
	return http.StatusInternalServerError, nodejoin.ReasonInternal, je.Msg
}
