package streams

import (
	"context"
	"fmt"
	"net"
	"net/http"
	goruntime "runtime"
	"strconv"

	"github.com/vishvananda/netns"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/tunnel"
)

// forward connects to the port on the pod's loopback, inside its network
// namespace (as kubelet does), and copies both ways. The agent's end of
// the pod's bytes ends with an empty Status frame.
func (h *Handler) forward(ctx context.Context, conn net.Conn, fw *tunnel.Writer, s *mqtt.StreamRequest) error {
	_, pid, ref := h.container(ctx, s)
	if ref != nil {
		return fw.WriteJSON(tunnel.Status, tunnel.Result{Error: ref.msg, Code: ref.code})
	}
	pod, err := dialInNetNS(ctx, fmt.Sprintf("/proc/%d/ns/net", pid), s.Port)
	if err != nil {
		msg := fmt.Sprintf("connect to port %d of pod %s/%s: %v", s.Port, s.Namespace, s.Pod, err)
		return fw.WriteJSON(tunnel.Status, tunnel.Result{Error: msg, Code: http.StatusInternalServerError})
	}
	defer pod.Close()
	if err := fw.WriteJSON(tunnel.Status, tunnel.Result{}); err != nil {
		return err
	}
	go func() {
		_ = toPod(conn, pod)
	}()
	if err := fw.Copy(tunnel.Data, pod); err != nil {
		return err
	}
	return fw.WriteJSON(tunnel.Status, tunnel.Result{})
}

// toPod writes the server's Data frames to the pod until the client's
// side ends (CloseStdin half-closes the pod connection).
func toPod(conn net.Conn, pod net.Conn) error {
	fr := tunnel.NewReader(conn)
	for {
		ch, p, err := fr.Read()
		if err != nil {
			pod.Close()
			return err
		}
		switch ch {
		case tunnel.Data:
			if _, err := pod.Write(p); err != nil {
				return err
			}
		case tunnel.CloseStdin:
			if tc, ok := pod.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
		}
	}
}

// dialInNetNS opens a TCP connection to 127.0.0.1:port in the network
// namespace at nsPath. The socket belongs to the namespace it was made in;
// the dial runs on a goroutine of its own whose thread goes back to the
// agent's namespace after, or dies with it when it cannot.
func dialInNetNS(ctx context.Context, nsPath string, port int32) (net.Conn, error) {
	type result struct {
		conn net.Conn
		err  error
	}
	done := make(chan result, 1)
	go func() {
		goruntime.LockOSThread()
		conn, err, back := dialIn(ctx, nsPath, port)
		if back {
			goruntime.UnlockOSThread()
		}
		done <- result{conn, err}
	}()
	r := <-done
	return r.conn, r.err
}

// dialIn runs on a locked thread; back says the thread is in the agent's
// namespace again.
func dialIn(ctx context.Context, nsPath string, port int32) (net.Conn, error, bool) {
	orig, err := netns.Get()
	if err != nil {
		return nil, fmt.Errorf("current network namespace: %w", err), true
	}
	defer orig.Close()
	target, err := netns.GetFromPath(nsPath)
	if err != nil {
		return nil, fmt.Errorf("pod network namespace: %w", err), true
	}
	defer target.Close()
	if err := netns.Set(target); err != nil {
		return nil, fmt.Errorf("enter the pod's network namespace: %w", err), true
	}
	var d net.Dialer
	conn, derr := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port))))
	return conn, derr, netns.Set(orig) == nil
}
