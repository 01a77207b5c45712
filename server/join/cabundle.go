package join

import (
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/bramble-edge/bramble/internal/idrule"
	nodejoin "github.com/bramble-edge/bramble/join"
)

// CABundlePath is where BundleHandler is mounted.
const CABundlePath = nodejoin.CABundlePath

// BundleSource is the CAs nodes should trust (*pki.PKI).
type BundleSource interface {
	BundlePEM() []byte
}

// NodeCerts says whether a certificate is its node's current one and lists
// the nodes that hold one (*NodeCertRegistry).
type NodeCerts interface {
	Check(node string, cert *x509.Certificate) error
	Nodes() []string
}

// BundleConfig holds what the CA bundle endpoint needs; all but Logger are
// required.
type BundleConfig struct {
	CA    BundleSource
	Certs NodeCerts
	// ReportFile is where the nodes' reports are kept (BundleReports), for
	// `rotate-ca --finish` and `certificate check` to read with the server
	// stopped.
	ReportFile string
	Logger     *slog.Logger // default slog.Default()
}

// BundleHandler answers GET nodejoin.CABundlePath to a node presenting its
// current certificate with the CA bundle (PEM, the signing CA first), and
// records the BundleHash the node says it holds (nodejoin.BundleHashHeader)
// in the report file. Mount it ahead of authentication, beside Handler.
func BundleHandler(cfg BundleConfig) (http.Handler, error) {
	if cfg.CA == nil || cfg.Certs == nil || cfg.ReportFile == "" {
		return nil, errors.New("CA bundle handler: CA, Certs and ReportFile are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &bundler{cfg: cfg, held: earlierReports(cfg)}, nil
}

// earlierReports are the reports of the file when they are about the
// bundle handed out now (a restart in the middle of a rollout forgets
// nothing); otherwise none.
func earlierReports(cfg BundleConfig) map[string]string {
	held := map[string]string{}
	rep, err := ReadBundleReport(cfg.ReportFile)
	cas, cerr := nodejoin.ParseBundle(cfg.CA.BundlePEM())
	if err != nil || cerr != nil || rep.Bundle != nodejoin.BundleHash(cas) {
		return held
	}
	for n, h := range rep.Nodes {
		if h != "" {
			held[n] = h
		}
	}
	return held
}

type bundler struct {
	cfg  BundleConfig
	mu   sync.Mutex
	held map[string]string // node -> hash reported since start
}

// isHexHash reports whether s is 64 lower-case hex digits (idrule, not a
// regexp: see there why).
func isHexHash(s string) bool {
	return idrule.Match(s, 64, 64, idrule.LowerHex, idrule.LowerHex)
}

func (h *bundler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	node, code, msg := h.caller(r)
	if code != http.StatusOK {
		writeStatus(w, code, http.StatusText(code), msg)
		h.cfg.Logger.Warn("CA bundle refused", "addr", r.RemoteAddr, "code", code, "msg", msg)
		return
	}
	bundle := h.cfg.CA.BundlePEM()
	if held := r.Header.Get(nodejoin.BundleHashHeader); held != "" {
		if !isHexHash(held) {
			writeStatus(w, http.StatusBadRequest, nodejoin.ReasonBadRequest,
				fmt.Sprintf("header %s: want the hex sha256 of the node's CA bundle", nodejoin.BundleHashHeader))
			return
		}
		if err := h.report(node, held, bundle); err != nil {
			h.cfg.Logger.Error("record the node's CA bundle", "node", node, "err", err)
		}
	}
	w.Header().Set("Content-Type", "application/x-pem-file")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(bundle)
}

// caller is the node whose current certificate came with r.
func (h *bundler) caller(r *http.Request) (string, int, string) {
	if r.Method != http.MethodGet {
		return "", http.StatusMethodNotAllowed, r.Method + " is not supported on " + r.URL.Path + "; use GET"
	}
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 {
		return "", http.StatusUnauthorized, "the CA bundle needs the node's current certificate (mutual TLS)"
	}
	cert := r.TLS.VerifiedChains[0][0]
	node, ok := strings.CutPrefix(cert.Subject.CommonName, nodejoin.NodeUserPrefix)
	if !ok || node == "" || !slices.Contains(cert.Subject.Organization, nodejoin.NodeGroup) {
		return "", http.StatusForbidden, fmt.Sprintf("certificate %q is not a node certificate", cert.Subject.CommonName)
	}
	if err := h.cfg.Certs.Check(node, cert); err != nil {
		return "", http.StatusUnauthorized, err.Error()
	}
	return node, http.StatusOK, ""
}

// report records what node holds; the file is written when that changed.
func (h *bundler) report(node, held string, bundle []byte) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held[node] == held {
		return nil
	}
	cas, err := nodejoin.ParseBundle(bundle)
	if err != nil {
		return err
	}
	h.held[node] = held
	rep := BundleReport{Bundle: nodejoin.BundleHash(cas), Nodes: map[string]string{}}
	for _, n := range h.cfg.Certs.Nodes() {
		rep.Nodes[n] = h.held[n]
	}
	rep.Nodes[node] = held
	return rep.write(h.cfg.ReportFile)
}
