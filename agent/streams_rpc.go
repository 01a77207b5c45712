package agent

import (
	"crypto/tls"
	"net/http"

	"github.com/bramble-edge/bramble/agent/streams"
)

// streamHandler serves kubectl exec and port-forward requests: the agent
// dials the server with its current node certificate (docs/EXEC.md).
func (a *agent) streamHandler(ren *renewal, serverURL string) *streams.Handler {
	tr := ren.http.Transport.(*http.Transport)
	d := &streams.Dialer{ServerURL: serverURL, TLS: func() *tls.Config { return tr.TLSClientConfig }}
	return streams.NewHandler(streams.Config{Node: a.node.NodeName, Runtime: a.rt, Dialer: d,
		Disabled: a.cfg.DisableExec, Logger: a.cfg.Logger})
}
