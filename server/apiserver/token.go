package apiserver

import (
	"context"
	"net/http"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/registry"
)

// TokenIssuer issues ServiceAccount tokens (server/satoken) and publishes
// what verifies them.
type TokenIssuer interface {
	// Issue answers a TokenRequest for ServiceAccount ns/name.
	Issue(ctx context.Context, ns, name string, req *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error)
	// ServeDiscovery answers /.well-known/openid-configuration.
	ServeDiscovery(w http.ResponseWriter, r *http.Request)
	// ServeJWKS answers /openid/v1/jwks.
	ServeJWKS(w http.ResponseWriter, r *http.Request)
}

// createToken answers POST serviceaccounts/{name}/token (kubectl create
// token, the agent's projected tokens) with the TokenRequest, its status
// holding the token.
func (a *API) createToken(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	if a.tokens == nil {
		return notFoundPath()
	}
	obj, opts, _, err := a.readRequestObject(w, r, ri, api.TokenRequestResource)
	if err != nil {
		return err
	}
	req := obj.(*authenticationv1.TokenRequest)
	if req.Name != "" && req.Name != ri.name {
		return badRequest("the name of the token request (%s) does not match the service account on the URL (%s)", req.Name, ri.name)
	}
	if opts.DryRun {
		return badRequest("dryRun is not supported for serviceaccounts/token")
	}
	if err := a.nodeTokenRestriction(r.Context(), ri, req); err != nil {
		return err
	}
	out, err := a.tokens.Issue(r.Context(), ri.namespace, ri.name, req)
	if err != nil {
		return err
	}
	out.APIVersion, out.Kind = "authentication.k8s.io/v1", "TokenRequest"
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// nodeTokenRestriction holds a node to tokens bound to its own pods.
func (a *API) nodeTokenRestriction(ctx context.Context, ri *requestInfo, req *authenticationv1.TokenRequest) error {
	u, ok := registry.UserFrom(ctx)
	if !ok || !strings.HasPrefix(u.Name, join.NodeUserPrefix) || !slices.Contains(u.Groups, join.NodeGroup) {
		return nil
	}
	node := strings.TrimPrefix(u.Name, join.NodeUserPrefix)
	var kind, podNode, podSA string
	if ref := req.Spec.BoundObjectRef; ref != nil {
		kind = ref.Kind
		if kind == "Pod" {
			obj, err := a.reg.Get(ctx, podsResource, ri.namespace, ref.Name)
			if err != nil {
				return err
			}
			pod := obj.(*corev1.Pod)
			podNode, podSA = pod.Spec.NodeName, pod.Spec.ServiceAccountName
		}
	}
	if err := auth.NodeTokenCheck(node, kind, podNode, podSA, ri.name); err != nil {
		return apierrors.NewForbidden(ri.res.GroupResource(), ri.name, err)
	}
	return nil
}

// oidcHandler serves the service account issuer's discovery documents,
// public as the keys in them are, or nil for other paths.
func (a *API) oidcHandler(path string) http.HandlerFunc {
	if a.tokens == nil {
		return nil
	}
	switch path {
	case "/.well-known/openid-configuration":
		return a.getOnly(a.tokens.ServeDiscovery)
	case "/openid/v1/jwks":
		return a.getOnly(a.tokens.ServeJWKS)
	}
	return nil
}
