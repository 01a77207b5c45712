package join

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"fmt"
	"strings"

	kjson "sigs.k8s.io/json"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/pki"
)

// DecodeJoinRequest reads the body of POST /v1-bramble/join strictly: one
// JSON object with exactly the fields of nodejoin.Request (no unknown,
// duplicate or differently cased ones), every field present and well
// formed, the CSR's signature valid. Errors are *nodejoin.Error: kind
// ErrInvalidNodeName for the node name (the handler answers 422), ErrRejected
// for the rest (400); the message names the field.
func DecodeJoinRequest(data []byte) (*nodejoin.Request, *x509.CertificateRequest, error) {
	var req nodejoin.Request
	strict, err := kjson.UnmarshalStrict(data, &req)
	if err != nil {
		return nil, nil, badRequest("request body: %v", err)
	}
	if len(strict) > 0 {
		msgs := make([]string, len(strict))
		for i, e := range strict {
			msgs[i] = e.Error()
		}
		return nil, nil, badRequest("request body: %s", strings.Join(msgs, "; "))
	}
	if err := checkRequestFields(&req); err != nil {
		return nil, nil, err
	}
	csr, err := pki.ParseCSRPEM([]byte(req.CSR))
	if err != nil {
		return nil, nil, badRequest("csr: %v", err)
	}
	if err := checkKey(csr.PublicKey); err != nil {
		return nil, nil, badRequest("csr: %v", err)
	}
	return &req, csr, nil
}

func checkRequestFields(req *nodejoin.Request) error {
	switch {
	case req.TokenID == "":
		return badRequest("tokenID: required")
	case nodejoin.CheckID(req.TokenID) != nil:
		return badRequest("tokenID %.40q: want %d lowercase letters or digits", req.TokenID, nodejoin.IDLen)
	case req.Secret == "":
		return badRequest("secret: required")
	case nodejoin.CheckSecret(req.Secret) != nil:
		return badRequest("secret: want %d lowercase letters or digits", nodejoin.SecretLen)
	case req.NodeName == "":
		return &nodejoin.Error{Kind: nodejoin.ErrInvalidNodeName, Msg: "nodeName: required"}
	case req.CSR == "":
		return badRequest("csr: required")
	}
	if err := nodejoin.ValidateNodeName(req.NodeName); err != nil {
		return err
	}
	if len(req.NodeName) > MaxNodeNameLen {
		return &nodejoin.Error{Kind: nodejoin.ErrInvalidNodeName,
			Msg: fmt.Sprintf("node name: %d characters, at most %d allowed", len(req.NodeName), MaxNodeNameLen)}
	}
	if req.NodePassword == "" {
		return badRequest("nodePassword: required (an agent older than node passwords cannot join; upgrade it)")
	}
	if err := nodejoin.CheckNodePassword(req.NodePassword); err != nil {
		return badRequest("nodePassword: %v", err)
	}
	return nil
}

// checkKey accepts the key types node certificates may hold: ECDSA on
// P-256, P-384 or P-521, Ed25519, and RSA of 2048 to 8192 bits.
func checkKey(pub any) error {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		switch k.Curve.Params().Name {
		case "P-256", "P-384", "P-521":
			return nil
		}
		return fmt.Errorf("ECDSA curve %s: want P-256, P-384 or P-521", k.Curve.Params().Name)
	case ed25519.PublicKey:
		return nil
	case *rsa.PublicKey:
		if n := k.N.BitLen(); n < 2048 || n > 8192 {
			return fmt.Errorf("RSA key of %d bits: want 2048 to 8192", n)
		}
		return nil
	}
	return fmt.Errorf("key type %T: want ECDSA, Ed25519 or RSA", pub)
}

func badRequest(format string, args ...any) error {
	return &nodejoin.Error{Kind: nodejoin.ErrRejected, Msg: fmt.Sprintf(format, args...)}
}
