package dns

import (
	"context"
	"errors"
	"fmt"
	"time"

	mdns "github.com/miekg/dns"
)

// Forwarder asks the node's upstream resolvers, in order, what the cluster
// zone does not answer, and caches what they say.
type Forwarder struct {
	upstreams []string // host:port
	cache     *Cache
	udp, tcp  *mdns.Client
}

// NewForwarder forwards to upstreams ("ip:port"), each try bounded by
// timeout, through cache (nil: no cache).
func NewForwarder(upstreams []string, timeout time.Duration, cache *Cache) *Forwarder {
	return &Forwarder{
		upstreams: upstreams,
		cache:     cache,
		udp:       &mdns.Client{Net: "udp", Timeout: timeout, UDPSize: mdns.DefaultMsgSize},
		tcp:       &mdns.Client{Net: "tcp", Timeout: timeout},
	}
}

// errNoUpstream is the error of a forwarder with no resolvers to ask.
var errNoUpstream = errors.New("no upstream resolvers")

// Exchange answers req from the cache or from the first upstream that
// answers without failing. It asks over TCP when overTCP (the client came
// over TCP) or when the UDP answer came back truncated. The reply carries
// req's ID.
func (f *Forwarder) Exchange(ctx context.Context, req *mdns.Msg, overTCP bool) (*mdns.Msg, error) {
	if f.cache != nil {
		if resp, ok := f.cache.Get(req); ok {
			resp.Id = req.Id
			return resp, nil
		}
	}
	if len(f.upstreams) == 0 {
		return nil, errNoUpstream
	}
	return f.tryAll(ctx, req, overTCP)
}

// tryAll asks the upstreams in turn until one answers without SERVFAIL
// or REFUSED (that answer is cached); else the last answer or error.
func (f *Forwarder) tryAll(ctx context.Context, req *mdns.Msg, overTCP bool) (*mdns.Msg, error) {
	var last *mdns.Msg
	var lastErr error
	for _, up := range f.upstreams {
		resp, err := f.ask(ctx, req, up, overTCP)
		if err != nil {
			lastErr = err
			continue
		}
		last = resp
		if resp.Rcode == mdns.RcodeServerFailure || resp.Rcode == mdns.RcodeRefused {
			continue
		}
		if f.cache != nil {
			f.cache.Put(req, resp)
		}
		return resp, nil
	}
	if last != nil {
		return last, nil
	}
	return nil, lastErr
}

// ask puts req to one upstream under a fresh ID, over UDP first unless
// overTCP, again over TCP when the UDP answer was truncated.
func (f *Forwarder) ask(ctx context.Context, req *mdns.Msg, upstream string, overTCP bool) (*mdns.Msg, error) {
	out := req.Copy()
	out.Id = mdns.Id()
	client := f.udp
	if overTCP {
		client = f.tcp
	}
	resp, _, err := client.ExchangeContext(ctx, out, upstream)
	if err == nil && resp.Truncated && !overTCP {
		resp, _, err = f.tcp.ExchangeContext(ctx, out, upstream)
	}
	if err != nil {
		return nil, fmt.Errorf("ask %s: %w", upstream, err)
	}
	if resp.Id != out.Id {
		return nil, fmt.Errorf("ask %s: answer with id %d, asked %d", upstream, resp.Id, out.Id)
	}
	resp.Id = req.Id
	return resp, nil
}
