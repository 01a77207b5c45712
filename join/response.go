package join

import (
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// statusFailure turns a non-200 answer into an *Error whose kind follows
// the Status reason.
func statusFailure(code int, body []byte) error {
	var st Status
	if err := json.Unmarshal(body, &st); err != nil || st.Message == "" {
		text := strings.TrimSpace(string(body))
		if len(text) > 200 {
			text = text[:200] + "..."
		}
		return joinError(ErrRejected, "server answered %d: %s", code, text)
	}
	if kind, ok := reasonErrors[st.Reason]; ok {
		return joinError(kind, "%s", st.Message)
	}
	return joinError(ErrRejected, "server answered %d: %s", code, st.Message)
}

// decodeResponse reads a successful answer. Unknown fields are allowed (a
// newer server may add some); the known ones must be present and sound.
func decodeResponse(data []byte) (*Response, error) {
	if len(data) > maxResponseBytes {
		return nil, joinError(ErrRejected, "join answer: more than %d bytes", maxResponseBytes)
	}
	var r Response
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, joinError(ErrRejected, "join answer: %v", err)
	}
	if r.Certificate == "" {
		return nil, joinError(ErrRejected, "join answer: certificate: missing")
	}
	if r.CA == "" {
		return nil, joinError(ErrRejected, "join answer: ca: missing")
	}
	for i, a := range r.MQTTAddresses {
		if err := checkMQTTAddress(a); err != nil {
			return nil, joinError(ErrRejected, "join answer: mqttAddresses[%d]: %v", i, err)
		}
	}
	return &r, nil
}

// mqttSchemes are the broker URL schemes a node accepts: TLS only.
var mqttSchemes = []string{"mqtts", "ssl", "tls", "wss"}

func checkMQTTAddress(a string) error {
	u, err := url.Parse(a)
	if err != nil {
		return err
	}
	if !slices.Contains(mqttSchemes, u.Scheme) || u.Host == "" {
		return fmt.Errorf("%q: want mqtts://host:port", a)
	}
	return nil
}

// credentialsFrom checks the answer against what was asked and builds the
// credentials: the CA bundle answered must hold one of anchors (the CA the
// token names, or for a renewal one the node trusts now), the certificate
// must be signed by a CA of the bundle, name this node and hold this key.
// The credentials keep the whole bundle as their CA.
func credentialsFrom(r *Response, anchors []*x509.Certificate, base *url.URL, node string, key crypto.Signer) (*Credentials, error) {
	bundle, err := ParseBundle([]byte(r.CA))
	if err != nil {
		return nil, joinError(ErrRejected, "join answer: ca: %v", err)
	}
	if !slices.ContainsFunc(anchors, func(a *x509.Certificate) bool { return containsCA(bundle, a) }) {
		return nil, joinError(ErrRejected, "join answer: ca: not the CA certificate the token names (nor one this node trusts)")
	}
	cert, err := parseLeaf([]byte(r.Certificate))
	if err != nil {
		return nil, joinError(ErrRejected, "join answer: certificate: %v", err)
	}
	if err := checkNodeCert(cert, bundle, node, key.Public()); err != nil {
		return nil, joinError(ErrRejected, "join answer: certificate: %v", err)
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return nil, err
	}
	return &Credentials{
		ServerURL:     base.String(),
		NodeName:      node,
		CACertPEM:     EncodeBundle(bundle),
		CertPEM:       pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}),
		KeyPEM:        keyPEM,
		MQTTAddresses: r.MQTTAddresses,
	}, nil
}

func parseLeaf(data []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("no PEM CERTIFICATE block")
	}
	return x509.ParseCertificate(block.Bytes)
}

// checkNodeCert checks that cert is a client certificate for node, holding
// pub, signed by one of cas.
func checkNodeCert(cert *x509.Certificate, cas []*x509.Certificate, node string, pub crypto.PublicKey) error {
	if issuerIn(cas, cert) == nil {
		return fmt.Errorf("not signed by the cluster CA (nor any CA of the bundle): %w", cert.CheckSignatureFrom(cas[0]))
	}
	if want := NodeUserPrefix + node; cert.Subject.CommonName != want {
		return fmt.Errorf("common name %q, want %q", cert.Subject.CommonName, want)
	}
	if !slices.Contains(cert.Subject.Organization, NodeGroup) {
		return fmt.Errorf("organization %q, want %q", cert.Subject.Organization, NodeGroup)
	}
	if !slices.Contains(cert.ExtKeyUsage, x509.ExtKeyUsageClientAuth) {
		return errors.New("not valid for client authentication")
	}
	eq, ok := pub.(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !eq.Equal(cert.PublicKey) {
		return errors.New("not issued for this node's key")
	}
	return nil
}
