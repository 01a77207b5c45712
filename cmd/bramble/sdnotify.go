package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
)

// systemd readiness (sd_notify(3)) without libsystemd: the units
// install.sh writes are Type=notify, so `systemctl start bramble` returns
// once the API answers and `systemctl start bramble-agent` once the node
// has its identity and runs its pods (agent.Config.OnRunning). Outside
// systemd NOTIFY_SOCKET is unset and nothing is sent.

// notifySocketEnv names the datagram socket systemd listens on.
const notifySocketEnv = "NOTIFY_SOCKET"

// sdNotify sends state (such as "READY=1") to $NOTIFY_SOCKET. It reports
// whether a message was sent; no socket is not an error.
func sdNotify(state string) (bool, error) {
	path := os.Getenv(notifySocketEnv)
	if path == "" {
		return false, nil
	}
	// A leading @ names a socket in the abstract namespace.
	if path[0] == '@' {
		path = "\x00" + path[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return false, fmt.Errorf("sd_notify %s: %w", os.Getenv(notifySocketEnv), err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(state)); err != nil {
		return false, fmt.Errorf("sd_notify %s: %w", os.Getenv(notifySocketEnv), err)
	}
	return true, nil
}

// notifyReady tells systemd the service is ready. A failure is logged,
// not returned: systemd then times the start out, which says more.
func notifyReady(log *slog.Logger, status string) {
	sent, err := sdNotify("READY=1\nSTATUS=" + status)
	switch {
	case err != nil:
		log.Warn("readiness notification to systemd failed", "err", err)
	case sent:
		log.Debug("told systemd we are ready", "status", status)
	}
}
