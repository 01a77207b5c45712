package apiserver

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// errAnswered: the upgrade failed and already wrote its answer.
var errAnswered = errors.New("the failed upgrade already answered")

// exitStatus is what the v4 and v5 protocols put on the error channel:
// Success, upstream's NonZeroExitCode with the code as a cause (kubectl
// exits with it), or the failure.
func exitStatus(code int, err error, cmd []string) *metav1.Status {
	switch {
	case err != nil:
		var se apierrors.APIStatus
		if errors.As(err, &se) {
			st := se.Status()
			return &st
		}
		return &metav1.Status{Status: metav1.StatusFailure, Message: err.Error(),
			Reason: metav1.StatusReasonInternalError, Code: http.StatusInternalServerError}
	case code == 0:
		return &metav1.Status{Status: metav1.StatusSuccess}
	}
	return &metav1.Status{Status: metav1.StatusFailure, Reason: "NonZeroExitCode",
		Message: fmt.Sprintf("command terminated with non-zero exit code: error executing command %v, exit code %d", cmd, code),
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: "ExitCode", Message: strconv.Itoa(code)}}}}
}

// hijackable lets libraries that insist on http.Hijacker take over the
// connection of a wrapped ResponseWriter (the recorder, the audit log).
type hijackable struct{ http.ResponseWriter }

// The connection's deadlines go: a session lasts as long as it is used.
func (h hijackable) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err == nil {
		_ = c.SetDeadline(time.Time{})
	}
	return c, brw, err
}
