package registry

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// Every error the registry returns for a caller's mistake is an API status
// error (k8s.io/apimachinery/pkg/api/errors), which the HTTP layer answers
// as a metav1.Status and in-process callers test with IsConflict,
// IsNotFound and the like. Other errors are the server's fault.

// StatusError is a failure Status with the given code, reason and message.
func StatusError(code int32, reason metav1.StatusReason, msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: code, Reason: reason, Message: msg,
	}}
}

// BadRequest is a 400 Status with a formatted message.
func BadRequest(format string, args ...any) error {
	return apierrors.NewBadRequest(fmt.Sprintf(format, args...))
}

// TooLarge is the 413 answer to a body or patched object over limit bytes.
func TooLarge(limit int64) error {
	return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("the request body is larger than the server's limit of %d bytes", limit))
}

// unappliablePatch is the 422 for a patch that does not apply: upstream
// answers it with a generic Status whose details are present but empty;
// ours keeps the cause in the message.
func unappliablePatch(err error) error {
	se := apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", "", 0, false)
	se.ErrStatus.Message = "the patch cannot be applied: " + err.Error()
	return se
}

func invalid(res *api.Resource, name string, errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: res.Group, Kind: res.Kind}, name, errs)
}

// TooLargeResourceVersion is the apiserver's answer to a resourceVersion
// from the future.
func TooLargeResourceVersion(rv, current int64) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusGatewayTimeout, Reason: metav1.StatusReasonTimeout,
		Message: fmt.Sprintf("Too large resource version: %d, current: %d", rv, current),
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{
			Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version",
		}}, RetryAfterSeconds: 1},
	}}
}

// StoreError turns a datastore error about one object of res (nil when
// not about one object) into an API error.
func StoreError(err error, res *api.Resource, name string) error {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		return err
	}
	var gr schema.GroupResource
	if res != nil {
		gr = res.GroupResource()
	}
	switch {
	case errors.Is(err, datastore.ErrNotFound):
		return apierrors.NewNotFound(gr, name)
	case errors.Is(err, datastore.ErrKeyExists):
		return apierrors.NewAlreadyExists(gr, name)
	case errors.Is(err, datastore.ErrConflict):
		return apierrors.NewConflict(gr, name, errModified)
	case errors.Is(err, datastore.ErrCompacted):
		return apierrors.NewResourceExpired(fmt.Sprintf("the resourceVersion asked for is too old and has been compacted: %v", err))
	case errors.Is(err, datastore.ErrClosed):
		return apierrors.NewServiceUnavailable("the datastore is shutting down")
	case errors.Is(err, datastore.ErrInvalid):
		return BadRequest("%v", err)
	case errors.Is(err, datastore.ErrNoSpace):
		return InsufficientStorage(err)
	}
	return fmt.Errorf("datastore: %w", err)
}

var errModified = errors.New("the object has been modified; please apply your changes to the latest version and try again")

func conflict(res *api.Resource, name string) error {
	return apierrors.NewConflict(res.GroupResource(), name, errModified)
}
