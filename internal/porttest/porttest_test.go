package porttest

import (
	"net"
	"strconv"
	"testing"
)

// TestFreeIsBindable: the port handed out can be listened on at once.
func TestFreeIsBindable(t *testing.T) {
	port := Free(t)
	if port <= 0 || port > 65535 {
		t.Fatalf("got port %d, want 1-65535", port)
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("listen on the free port %d: %v", port, err)
	}
	l.Close()
}
