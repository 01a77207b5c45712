package agent

import (
	"context"
	"encoding/json"
	"net"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/bramble-edge/bramble/agent/network/dns"
	"github.com/bramble-edge/bramble/mqtt"
)

// start puts the address on the node, reads the upstream resolvers and
// listens on port 53 of the address.
func (c *clusterDNS) start(ctx context.Context) error {
	dev, err := dns.EnsureDevice(nil, dns.DefaultDevice, c.addr)
	if err != nil {
		return err
	}
	file := dns.ChooseResolvConf(c.file, dns.EtcResolvConf, dns.SystemdResolvConf)
	host, err := dns.ReadHostConfig(file)
	if err != nil {
		return err
	}
	self := net.JoinHostPort(c.addr.String(), "53")
	srv := dns.New(dns.Config{Addr: self, Domain: c.domain, Upstreams: host.Upstreams(self), Log: c.log})
	if err := srv.Start(ctx); err != nil {
		return err
	}
	c.log.Info("cluster DNS serving", "addr", self, "device", dev, "resolv_conf", file)
	c.srv = srv
	return nil
}

// refresh builds a new view when the store moved since the last one.
func (c *clusterDNS) refresh() {
	rev := c.store.Rev()
	if rev == c.rev {
		return
	}
	c.rev = rev
	c.srv.SetView(dns.Build(c.snapshot(), c.domain, uint32(rev)))
}

// snapshot decodes the Services, EndpointSlices and Pods of the store; an
// object that does not decode is skipped with a warning.
func (c *clusterDNS) snapshot() dns.Snapshot {
	var s dns.Snapshot
	s.Services = decodeAll[corev1.Service](c, storeServices)
	s.EndpointSlices = decodeAll[discoveryv1.EndpointSlice](c, storeEndpointSlices)
	s.Pods = decodeAll[corev1.Pod](c, mqtt.ResourcePods)
	return s
}

func decodeAll[T any](c *clusterDNS, resource string) []*T {
	var out []*T
	for ref, raw := range c.store.List(resource) {
		obj := new(T)
		if err := json.Unmarshal(raw, obj); err != nil {
			c.log.Warn("stored object does not decode; not in cluster DNS", "resource", resource, "name", ref.Name, "err", err)
			continue
		}
		out = append(out, obj)
	}
	return out
}
