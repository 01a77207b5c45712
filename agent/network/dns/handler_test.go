package dns

import (
	"bytes"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"

	mdns "github.com/miekg/dns"
)

// failingWriter is a UDP client's ResponseWriter whose replies cannot be
// written.
type failingWriter struct {
	mdns.ResponseWriter
	err error
}

func (w failingWriter) RemoteAddr() net.Addr {
	return &net.UDPAddr{IP: net.IPv4(10, 42, 0, 7), Port: 5353}
}
func (w failingWriter) WriteMsg(*mdns.Msg) error { return w.err }

// TestServeDNSLogsUnwrittenReply: a reply that cannot be written is
// logged at debug level with the query's name and the error.
func TestServeDNSLogsUnwrittenReply(t *testing.T) {
	var logs bytes.Buffer
	s := New(Config{Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	req := new(mdns.Msg)
	req.SetQuestion("web.shop.svc.cluster.local.", mdns.TypeA)
	s.ServeDNS(failingWriter{err: errors.New("sendmsg: no buffer space available")}, req)
	got := logs.String()
	for _, want := range []string{"level=DEBUG", "cluster dns: reply not written", "name=web.shop.svc.cluster.local.", "no buffer space available"} {
		if !strings.Contains(got, want) {
			t.Errorf("logs: got %q, want %q in them", got, want)
		}
	}
}
