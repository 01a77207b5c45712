package publish

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/auth"
)

// ViewHandler serves GET mqtt.ViewPath(node)?since=R on the API server's
// port (mount it at mqtt.ViewPrefix) to whom authz lets read it (see
// ViewAttributes): the node itself, with its certificate, and users RBAC
// allows. At most Config.MaxViews answers are built at once; beyond that
// it answers 429 with Retry-After, so thousands of agents relisting after
// a server restart queue on their side, backing off, instead of on the
// server's.
func (p *Publisher) ViewHandler(authn auth.Authenticator, authz auth.Authorizer) http.Handler {
	sem := make(chan struct{}, p.cfg.MaxViews)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		node, since, code, err := p.viewRequest(authn, authz, r)
		if err != nil {
			http.Error(w, err.Error(), code)
			return
		}
		select {
		case sem <- struct{}{}:
			defer func() { <-sem }()
		default:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many relists at once; retry later", http.StatusTooManyRequests)
			return
		}
		v, err := p.View(r.Context(), node, since)
		var body []byte
		if err == nil {
			body, err = v.Encode()
		}
		if err != nil {
			p.viewError(w, r, node, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
}

// viewRequest checks the method, path, caller and since of a relist, and
// says which status code a failure gets.
func (p *Publisher) viewRequest(authn auth.Authenticator, authz auth.Authorizer, r *http.Request) (string, int64, int, error) {
	if r.Method != http.MethodGet {
		return "", 0, http.StatusMethodNotAllowed, fmt.Errorf("%s is not supported on %s", r.Method, r.URL.Path)
	}
	node, ok := mqtt.NodeOfViewPath(r.URL.Path)
	if !ok {
		return "", 0, http.StatusNotFound, fmt.Errorf("%s: not found; want %s", r.URL.Path, mqtt.ViewPath("{node}"))
	}
	user, err := authn.Authenticate(r)
	if err != nil {
		return "", 0, http.StatusUnauthorized, err
	}
	if err := authz.Authorize(r.Context(), user, ViewAttributes(node)); err != nil {
		return "", 0, http.StatusForbidden, fmt.Errorf("%s may not read the view of node %q: %w", user.Name, node, err)
	}
	since, err := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64)
	if r.URL.Query().Get("since") == "" {
		since, err = 0, nil
	}
	if err != nil || since < 0 {
		return "", 0, http.StatusBadRequest, fmt.Errorf("since: got %q, want a revision (an integer >= 0)", r.URL.Query().Get("since"))
	}
	return node, since, 0, nil
}

// ViewAttributes are what reading node's view is authorized as: get on
// the Node's "view" subresource (its path, mqtt.ViewPath, reads as one).
// The view holds the node's pods and the ConfigMaps and Secrets they
// reference, so the node rules give a node its own view only, and of the
// bootstrap roles only cluster-admin holds it; a ClusterRole with
// resources ["nodes/view"] and verb get grants it.
func ViewAttributes(node string) auth.Attributes {
	return auth.Attributes{Verb: "get", Resource: "nodes", Subresource: "view", Name: node}
}

func (p *Publisher) viewError(w http.ResponseWriter, r *http.Request, node string, err error) {
	switch {
	case errors.Is(err, ErrBehind), errors.Is(err, ErrNotRunning):
		w.Header().Set("Retry-After", "1")
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		// the caller left
	default:
		p.log.Warn("cannot answer a node's relist", "node", node, "err", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}
