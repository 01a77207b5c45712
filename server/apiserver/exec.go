package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/streams"
)

// StreamHub opens interactive streams through the agents' own connections
// (server/streams.Hub): Open asks node's agent and returns the accepted
// tunnel; Accept serves the agent's side of it.
type StreamHub interface {
	Open(ctx context.Context, node, kind string, s mqtt.StreamRequest) (net.Conn, error)
	Accept(w http.ResponseWriter, r *http.Request, user string)
}

// connectSubresource: the upgrades kubectl makes to a pod.
func connectSubresource(sub string) bool {
	return sub == "exec" || sub == "attach" || sub == "portforward"
}

// execOptions reads pods/exec's query as upstream's PodExecOptions.
func execOptions(q url.Values, exec bool) (*mqtt.StreamRequest, error) {
	s := &mqtt.StreamRequest{Container: q.Get("container"), Command: q["command"]}
	for _, f := range []struct {
		name string
		v    *bool
	}{{"stdin", &s.Stdin}, {"stdout", &s.Stdout}, {"stderr", &s.Stderr}, {"tty", &s.TTY}} {
		b, err := boolParam(q, f.name)
		if err != nil {
			return nil, err
		}
		*f.v = b
	}
	switch {
	case exec && len(s.Command) == 0:
		return nil, badRequest("query parameter command: required (the command to run)")
	case !s.Stdin && !s.Stdout && !s.Stderr:
		return nil, badRequest("you must specify at least 1 of stdin, stdout, stderr")
	case s.TTY && s.Stdout && s.Stderr:
		s.Stderr = false // with a terminal both outputs are one stream
	}
	return s, nil
}

// streamTarget loads the pod and fills in what the agent needs to find it.
func (a *API) streamTarget(ctx context.Context, ri *requestInfo, s *mqtt.StreamRequest, needContainer bool) (*corev1.Pod, error) {
	obj, err := a.reg.Get(ctx, podsResource, ri.namespace, ri.name)
	if err != nil {
		return nil, err
	}
	pod := obj.(*corev1.Pod)
	if needContainer {
		if s.Container, err = pickContainer(pod, s.Container); err != nil {
			return nil, err
		}
	}
	switch {
	case pod.Spec.NodeName == "":
		return nil, badRequest("pod %s does not have a host assigned", pod.Name)
	case pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed:
		return nil, badRequest("cannot exec into or attach to a container in a completed pod; current phase is %s", pod.Status.Phase)
	case a.streams == nil:
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no agent connection for node %q (pod %s/%s)",
			pod.Spec.NodeName, pod.Namespace, pod.Name))
	}
	s.Namespace, s.Pod, s.UID = pod.Namespace, pod.Name, string(pod.UID)
	return pod, nil
}

// podExec serves pods/exec: the tunnel first (a refusal is still a
// Status), then the client's upgrade to SPDY or WebSocket.
func (a *API) podExec(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	return a.execLike(w, r, ri, mqtt.RPCKindExec)
}

// podAttach serves pods/attach the same way; the agent joins the
// container's own stdin and output (containers started with stdin or tty).
func (a *API) podAttach(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	return a.execLike(w, r, ri, mqtt.RPCKindAttach)
}

func (a *API) execLike(w http.ResponseWriter, r *http.Request, ri *requestInfo, kind string) error {
	s, err := execOptions(ri.query, kind == mqtt.RPCKindExec)
	if err != nil {
		return err
	}
	pod, err := a.streamTarget(r.Context(), ri, s, true)
	if err != nil {
		return err
	}
	a.log.Info("stream", "kind", kind, "user", ri.user.Name, "pod", pod.Namespace+"/"+pod.Name,
		"container", s.Container, "command", strings.Join(s.Command, " "), "node", pod.Spec.NodeName)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	conn, err := a.streams.Open(ctx, pod.Spec.NodeName, kind, *s)
	if err != nil {
		return err
	}
	client, err := upgradeExec(w, r, s, cancel)
	if err != nil {
		conn.Close()
		if errors.Is(err, errAnswered) {
			return nil
		}
		return err
	}
	defer client.close()
	code, err := streams.Exec(ctx, conn, client.io())
	client.finish(code, err, s.Command)
	return nil
}

// execClient is kubectl's side of an exec after the upgrade.
type execClient interface {
	io() streams.ExecIO
	// finish reports how the process ended on the error channel.
	finish(code int, err error, cmd []string)
	close()
}

// upgradeExec upgrades to WebSocket when the client asks for it, else to
// SPDY (kubectl before 1.30, and later ones falling back).
func upgradeExec(w http.ResponseWriter, r *http.Request, s *mqtt.StreamRequest, cancel context.CancelFunc) (execClient, error) {
	if isWebSocket(r) {
		return upgradeExecWS(w, r, s, cancel)
	}
	return upgradeExecSPDY(w, r, s, cancel)
}

func isWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}
