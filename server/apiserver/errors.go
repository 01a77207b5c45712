package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/registry"
)

// writeError answers with err as a metav1.Status. Errors that are not API
// status errors are internal: logged, and answered with 500.
func (a *API) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			return // the client went away; nobody is left to answer
		}
		a.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		se = apierrors.NewInternalError(err)
	}
	st := se.Status()
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	if st.Status == "" {
		st.Status = metav1.StatusFailure
	}
	a.log.Debug("request error", "path", r.URL.Path, "code", st.Code, "reason", st.Reason, "message", st.Message)
	writeJSON(w, int(st.Code), &st)
}

// writeJSON answers code with v encoded as JSON.
func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		code, data = http.StatusInternalServerError, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"encode response failed","reason":"InternalError","code":500}`)
	}
	writeRaw(w, code, "application/json", data)
}

func writeRaw(w http.ResponseWriter, code int, contentType string, data []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

func statusError(code int32, reason metav1.StatusReason, msg string) error {
	return registry.StatusError(code, reason, msg)
}

// notFoundPath answers a path that names no resource, as upstream's
// go-restful error handler does: a generic 404 whose details are present
// but empty (kubectl reads details.name to tell a missing subresource from
// a missing object).
func notFoundPath() error {
	return apierrors.NewGenericServerResponse(http.StatusNotFound, "", schema.GroupResource{}, "", "", 0, false)
}

// methodNotAllowedPath answers a method a path does not serve. Upstream
// registers a route per served verb, so its router answers the others
// with a generic 405 whose details are present but empty.
func methodNotAllowedPath() error {
	return apierrors.NewGenericServerResponse(http.StatusMethodNotAllowed, "", schema.GroupResource{}, "", "", 0, false)
}

func badRequest(format string, args ...any) error { return registry.BadRequest(format, args...) }

// authError turns an authenticator or authorizer error wrapping sentinel
// into the refusal toStatus makes of it; any other error (a datastore
// failure while checking) is the server's fault, not the client's.
func authError(err, sentinel error, toStatus func(error) error) error {
	if errors.Is(err, sentinel) {
		return toStatus(err)
	}
	return fmt.Errorf("check credentials: %w", err)
}

func unauthorized(err error) error {
	return apierrors.NewUnauthorized(fmt.Sprintf("Unauthorized: %v", err))
}

// forbidden refuses ri. On a non-resource path upstream's refusal names no
// resource: its details are present but empty.
func forbidden(ri *requestInfo, user *auth.User, err error) error {
	if ri.res == nil {
		se := apierrors.NewForbidden(schema.GroupResource{}, "", err)
		se.ErrStatus.Message = fmt.Sprintf("forbidden: User %q cannot %s path %q: %v", user.Name, ri.verb, ri.path, err)
		if fe := (*auth.ForbiddenError)(nil); errors.As(err, &fe) && fe.Reason == "" {
			se.ErrStatus.Message = "forbidden: " + fe.Error() // it names user, verb and path already
		}
		return se
	}
	return apierrors.NewForbidden(ri.res.GroupResource(), ri.name, err)
}

// storeError turns a datastore error about one object into an API error.
func storeError(err error, res *api.Resource, name string) error {
	return registry.StoreError(err, res, name)
}
