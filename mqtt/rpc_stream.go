package mqtt

import (
	"fmt"
	"strings"
)

// Interactive streams (kubectl exec, attach, port-forward, cp) do not flow
// over MQTT: the request goes on the node's rpc/req topic like a log
// request, and the agent answers by dialing the server's HTTPS port with
// its node certificate (the server still never dials the agent) and
// upgrading GET Tunnel to the protocol "bramble-tunnel". The stream then
// runs on that connection in the frames of package mqtt/tunnel. See
// docs/EXEC.md for why (measured) and the frame format.

// TunnelProtocol is the Upgrade token of the agent's tunnel request.
const TunnelProtocol = "bramble-tunnel"

// TunnelPathPrefix is where the server accepts agents' tunnels; the
// request id follows.
const TunnelPathPrefix = "/bramble/v1/tunnels/"

// Limits of a stream request.
const (
	rpcMaxArgs    = 1024
	rpcMaxArgsLen = 2 << 10
)

// StreamRequest says what an interactive stream runs.
type StreamRequest struct {
	// Namespace, Pod, UID and Container name the target (Container is
	// empty for a port-forward).
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	UID       string `json:"uid"`
	Container string `json:"container,omitempty"`
	// Command is the exec'd process (kind exec).
	Command []string `json:"command,omitempty"`
	// Which streams the client opened; TTY gives the process a terminal
	// (stdout then carries both outputs).
	Stdin  bool `json:"stdin,omitempty"`
	Stdout bool `json:"stdout,omitempty"`
	Stderr bool `json:"stderr,omitempty"`
	TTY    bool `json:"tty,omitempty"`
	// Port in the pod's network namespace (kind portforward).
	Port int32 `json:"port,omitempty"`
	// Tunnel is the path the agent upgrades: TunnelPathPrefix + the id.
	Tunnel string `json:"tunnel"`
}

// TunnelPath is the path of request id's tunnel.
func TunnelPath(id string) string { return TunnelPathPrefix + id }

func (r *RPCRequest) checkStream() error {
	s := r.Stream
	if s == nil {
		return fmt.Errorf("rpc request %s: kind %q: needs a stream", r.ID, r.Kind)
	}
	names := &RPCRequest{ID: r.ID, Namespace: s.Namespace, Pod: s.Pod, Container: s.Container, UID: s.UID}
	if r.Kind == RPCKindPortForward && names.Container == "" {
		names.Container = "none" // a port-forward names no container
	}
	if err := names.checkNames(); err != nil {
		return err
	}
	if err := names.checkFilters(); err != nil {
		return err
	}
	if s.Tunnel != TunnelPath(r.ID) {
		return fmt.Errorf("rpc request %s: tunnel %q: must be %q", r.ID, s.Tunnel, TunnelPath(r.ID))
	}
	switch r.Kind {
	case RPCKindExec:
		return checkCommand(r.ID, s.Command)
	case RPCKindPortForward:
		if s.Port < 1 || s.Port > 65535 {
			return fmt.Errorf("rpc request %s: port %d: must be 1-65535", r.ID, s.Port)
		}
	}
	return nil
}

func checkCommand(id string, cmd []string) error {
	if len(cmd) == 0 || len(cmd) > rpcMaxArgs {
		return fmt.Errorf("rpc request %s: command of %d arguments: must have 1-%d", id, len(cmd), rpcMaxArgs)
	}
	n := 0
	for _, a := range cmd {
		n += len(a)
		if strings.IndexByte(a, 0) >= 0 {
			return fmt.Errorf("rpc request %s: command argument %q: must not hold a NUL byte", id, a)
		}
	}
	if n > rpcMaxArgsLen {
		return fmt.Errorf("rpc request %s: command of %d bytes: must be at most %d", id, n, rpcMaxArgsLen)
	}
	return nil
}
