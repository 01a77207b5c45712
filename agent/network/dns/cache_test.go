package dns

import (
	"fmt"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
)

func answerFor(name string, ttl int) (*mdns.Msg, *mdns.Msg) {
	req := new(mdns.Msg)
	req.SetQuestion(name, mdns.TypeA)
	resp := new(mdns.Msg)
	resp.SetReply(req)
	resp.Answer = []mdns.RR{mustRR(fmt.Sprintf("%s %d IN A 192.0.2.7", name, ttl))}
	return req, resp
}

func TestCacheCountsTTLDown(t *testing.T) {
	now := time.Unix(1000, 0)
	c := NewCache(10, time.Hour, func() time.Time { return now })
	req, resp := answerFor("a.test.", 30)
	c.Put(req, resp)
	now = now.Add(12 * time.Second)
	got, ok := c.Get(req)
	if !ok || got.Answer[0].Header().Ttl != 18 {
		t.Fatalf("after 12s: got %v, %v; want TTL 18", got, ok)
	}
	if resp.Answer[0].Header().Ttl != 30 {
		t.Fatal("Get changed the stored answer")
	}
	now = now.Add(18 * time.Second)
	if _, ok := c.Get(req); ok {
		t.Fatal("answer outlived its TTL")
	}
}

func TestCacheCapsTTLAndSkipsFailures(t *testing.T) {
	now := time.Unix(1000, 0)
	c := NewCache(10, time.Minute, func() time.Time { return now })
	req, resp := answerFor("a.test.", 86400)
	c.Put(req, resp)
	now = now.Add(61 * time.Second)
	if _, ok := c.Get(req); ok {
		t.Fatal("kept past the maximum TTL")
	}
	req, resp = answerFor("b.test.", 30)
	resp.Rcode = mdns.RcodeServerFailure
	c.Put(req, resp)
	req, resp = answerFor("c.test.", 30)
	resp.Truncated = true
	c.Put(req, resp)
	req, resp = answerFor("d.test.", 0)
	c.Put(req, resp)
	if c.Len() != 0 {
		t.Fatalf("cached %d failures, truncated or zero-TTL answers", c.Len())
	}
}

func TestCacheNegativeUsesSOAMinimum(t *testing.T) {
	now := time.Unix(1000, 0)
	c := NewCache(10, time.Hour, func() time.Time { return now })
	req, resp := answerFor("gone.test.", 30)
	resp.Answer, resp.Rcode = nil, mdns.RcodeNameError
	resp.Ns = []mdns.RR{mustRR("test. 300 IN SOA ns.test. h.test. 1 2 3 4 20")}
	c.Put(req, resp)
	now = now.Add(21 * time.Second)
	if _, ok := c.Get(req); ok {
		t.Fatal("negative answer kept past the SOA minimum")
	}
}

func TestCacheIsBounded(t *testing.T) {
	c := NewCache(100, time.Hour, nil)
	for i := range 1000 {
		req, resp := answerFor(fmt.Sprintf("n%d.test.", i), 60)
		c.Put(req, resp)
	}
	if c.Len() != 100 {
		t.Fatalf("len %d, want the bound 100", c.Len())
	}
}

func TestCacheKeySeparatesTypeAndDO(t *testing.T) {
	c := NewCache(10, time.Hour, nil)
	req, resp := answerFor("a.test.", 30)
	c.Put(req, resp)
	aaaa := req.Copy()
	aaaa.Question[0].Qtype = mdns.TypeAAAA
	do := req.Copy()
	do.SetEdns0(1232, true)
	upper := req.Copy()
	upper.Question[0].Name = "A.TEST."
	if _, ok := c.Get(aaaa); ok {
		t.Fatal("AAAA answered from an A entry")
	}
	if _, ok := c.Get(do); ok {
		t.Fatal("DO query answered from a plain entry")
	}
	if _, ok := c.Get(upper); !ok {
		t.Fatal("names differing in case missed the entry")
	}
}
