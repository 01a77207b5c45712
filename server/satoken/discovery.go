package satoken

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/go-jose/go-jose/v4"
)

// JWKSPath is where the trusted public keys are served.
const JWKSPath = "/openid/v1/jwks"

// discoveryDoc is the OpenID provider configuration upstream serves.
type discoveryDoc struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	ResponseTypes []string `json:"response_types_supported"`
	SubjectTypes  []string `json:"subject_types_supported"`
	SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
}

// ServeDiscovery answers /.well-known/openid-configuration.
func (t *Tokens) ServeDiscovery(w http.ResponseWriter, r *http.Request) {
	doc := discoveryDoc{Issuer: t.cfg.Issuer, JWKSURI: strings.TrimSuffix(t.cfg.Issuer, "/") + JWKSPath,
		ResponseTypes: []string{"id_token"}, SubjectTypes: []string{"public"}, SigningAlgs: []string{"RS256"}}
	writeJSON(w, "application/json", doc)
}

// ServeJWKS answers /openid/v1/jwks with every trusted public key (the
// current ones and the retired ones whose tokens may still be valid).
func (t *Tokens) ServeJWKS(w http.ResponseWriter, r *http.Request) {
	keys, err := t.keys.all(r.Context())
	if err != nil {
		http.Error(w, "read service account keys: "+err.Error(), http.StatusInternalServerError)
		return
	}
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{}}
	for _, kid := range slices.Sorted(maps.Keys(keys)) {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: keys[kid], KeyID: kid, Algorithm: "RS256", Use: "sig"})
	}
	writeJSON(w, "application/jwk-set+json", set)
}

func writeJSON(w http.ResponseWriter, contentType string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(data)
}
