package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/httpstream/spdy"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/streams"
)

// The port-forward protocols: portforward.k8s.io over SPDY/3.1, and the
// same SPDY carried in WebSocket binary messages (kubectl 1.30+).
const (
	pfProtocol    = "portforward.k8s.io"
	pfWSTunneling = "SPDY/3.1+portforward.k8s.io"
)

// podPortForward serves pods/portforward. Each pair of streams the client
// opens (data and error, one requestID) is one connection to a port of
// the pod, carried by a tunnel of its own from the agent.
func (a *API) podPortForward(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	pod, err := a.streamTarget(r.Context(), ri, &mqtt.StreamRequest{}, false)
	if err != nil {
		return err
	}
	a.log.Info("stream", "kind", "portforward", "user", ri.user.Name, "pod", pod.Namespace+"/"+pod.Name,
		"ports", ri.query["ports"], "node", pod.Spec.NodeName)
	arrived := make(chan newStream, 16)
	onStream := func(st httpstream.Stream, reply <-chan struct{}) error {
		select {
		case arrived <- newStream{st, reply}:
			return nil
		default:
			return fmt.Errorf("too many streams waiting")
		}
	}
	conn, err := upgradePortForward(w, r, onStream)
	if conn == nil {
		return err
	}
	defer conn.Close()
	a.servePortForward(r.Context(), conn, arrived, pod)
	return nil
}

func upgradePortForward(w http.ResponseWriter, r *http.Request, onStream httpstream.NewStreamHandler) (httpstream.Connection, error) {
	if isWebSocket(r) {
		return upgradeTunneling(w, r, onStream)
	}
	if r.Header.Get(httpstream.HeaderProtocolVersion) == "" {
		return nil, badRequest("unable to upgrade: %s is required", httpstream.HeaderProtocolVersion)
	}
	if _, err := httpstream.Handshake(r, w, []string{pfProtocol}); err != nil {
		return nil, nil // Handshake answered
	}
	return spdy.NewResponseUpgrader().UpgradeResponse(hijackable{w}, r, onStream), nil
}

// servePortForward pairs the client's streams and forwards each pair
// until the client closes the connection.
func (a *API) servePortForward(ctx context.Context, conn httpstream.Connection, arrived <-chan newStream, pod *corev1.Pod) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pairs := map[string]*streamPair{}
	for {
		select {
		case <-conn.CloseChan():
			return
		case ns := <-arrived:
			<-ns.reply
			h := ns.s.Headers()
			id := h.Get("requestID")
			p := pairs[id]
			if p == nil {
				p = &streamPair{}
				pairs[id] = p
			}
			if !p.add(h.Get("streamType"), ns.s) {
				ns.s.Reset()
				continue
			}
			if p.data != nil && p.errs != nil {
				delete(pairs, id)
				go a.forwardPair(ctx, conn, pod, h.Get("port"), p)
			}
		}
	}
}

type streamPair struct{ data, errs httpstream.Stream }

func (p *streamPair) add(typ string, s httpstream.Stream) bool {
	switch {
	case typ == "data" && p.data == nil:
		p.data = s
	case typ == "error" && p.errs == nil:
		p.errs = s
	default:
		return false
	}
	return true
}

// forwardPair carries one connection; a failure goes on its error stream
// in upstream's words, which kubectl prints.
func (a *API) forwardPair(ctx context.Context, conn httpstream.Connection, pod *corev1.Pod, portText string, p *streamPair) {
	defer conn.RemoveStreams(p.data, p.errs)
	defer p.errs.Close()
	defer p.data.Close()
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 {
		fmt.Fprintf(p.errs, "invalid port %q: must be 1-65535", portText)
		return
	}
	s := mqtt.StreamRequest{Namespace: pod.Namespace, Pod: pod.Name, UID: string(pod.UID), Port: int32(port)}
	tc, err := a.streams.Open(ctx, pod.Spec.NodeName, mqtt.RPCKindPortForward, s)
	if err == nil {
		err = streams.Forward(ctx, tc, p.data)
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(p.errs, "error forwarding port %d to pod %s, uid %s: %v", port, pod.Name, pod.UID, err)
	}
}
