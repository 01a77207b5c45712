package registry

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReasonInsufficientStorage is the Status reason of a write refused because
// the datastore's disk is full. Upstream has no reason for it (etcd's
// "mvcc: database space exceeded" reaches clients as a 500 InternalError);
// bramble answers HTTP 507 Insufficient Storage (RFC 4918: the server
// cannot store what the request needs), which says what happened and that
// retrying at once will not help, and kubectl prints the reason and the
// message: "Error from server (InsufficientStorage): ...".
const ReasonInsufficientStorage metav1.StatusReason = "InsufficientStorage"

// InsufficientStorage is the API's answer to a write the datastore could
// not make for lack of disk space; nothing was written.
func InsufficientStorage(err error) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInsufficientStorage, Reason: ReasonInsufficientStorage,
		Message: "the datastore cannot write, its disk is full (" + err.Error() +
			"); nothing was written: free disk space on the server and retry, writes resume by themselves",
	}}
}
