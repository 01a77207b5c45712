package agent

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/agent/network/dns"
	"github.com/bramble-edge/bramble/agent/network/netnstest"
	"github.com/bramble-edge/bramble/mqtt"
)

// TestClusterDNSFollowsStore: the view follows the local store (Services,
// EndpointSlices, the node's Pods), reread when the revision moves, and
// a stored object that does not decode is left out, not fatal.
func TestClusterDNSFollowsStore(t *testing.T) {
	store, err := OpenStore(filepath.Join(t.TempDir(), StateDir))
	if err != nil {
		t.Fatal(err)
	}
	c := &clusterDNS{domain: "cluster.local", store: store, log: slog.Default(), rev: -1}
	c.srv = dns.New(dns.Config{Addr: "127.0.0.1:0", Timeout: time.Second})
	if err := c.srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.srv.Stop)
	c.refresh()
	if got := ask(t, c.srv.Addr(), "web.shop.svc.cluster.local."); len(got) != 0 {
		t.Fatalf("empty store answers %q", got)
	}
	web := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.43.0.20", ClusterIPs: []string{"10.43.0.20"}}}
	db := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone}}
	es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db-x",
		Labels: map[string]string{discoveryv1.LabelServiceName: "db"}},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.42.0.5"}}}}
	bad := mqtt.Change{Type: mqtt.Added, ObjectRef: ref(storeServices, "shop", "bad"), Object: []byte(`{"spec":7}`)}
	if err := store.Apply([]mqtt.Change{
		change(t, mqtt.Added, ref(storeServices, "shop", "web"), web),
		change(t, mqtt.Added, ref(storeServices, "shop", "db"), db),
		change(t, mqtt.Added, ref(storeEndpointSlices, "shop", "db-x"), es),
		bad,
	}, 5); err != nil {
		t.Fatal(err)
	}
	c.refresh()
	if got := ask(t, c.srv.Addr(), "web.shop.svc.cluster.local."); !slices.Equal(got, []string{"10.43.0.20"}) {
		t.Fatalf("service: got %q", got)
	}
	if got := ask(t, c.srv.Addr(), "db.shop.svc.cluster.local."); !slices.Equal(got, []string{"10.42.0.5"}) {
		t.Fatalf("headless service: got %q", got)
	}
}

func ask(t *testing.T, addr, name string) []string {
	t.Helper()
	m := new(mdns.Msg)
	m.SetQuestion(name, mdns.TypeA)
	resp, _, err := (&mdns.Client{Timeout: 2 * time.Second}).Exchange(m, addr)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, rr := range resp.Answer {
		if a, ok := rr.(*mdns.A); ok {
			out = append(out, a.A.String())
		}
	}
	return out
}

func TestClusterDNSFlags(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{ClusterDNS: "fd00::a"}, "--cluster-dns"},
		{Config{ClusterDNS: "ten"}, "--cluster-dns"},
		{Config{ClusterDomain: "Not_A.Domain"}, "--cluster-domain"},
	} {
		if err := tc.cfg.clusterDNSDefaults(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error naming %s", tc.cfg, err, tc.want)
		}
	}
	var cfg Config
	if err := cfg.clusterDNSDefaults(); err != nil || cfg.ClusterDNS != DefaultClusterDNS || cfg.ClusterDomain != DefaultClusterDomain {
		t.Fatalf("defaults: %v %q %q", err, cfg.ClusterDNS, cfg.ClusterDomain)
	}
	if newClusterDNS(&Config{DisableClusterDNS: true}, nil, true) != nil || newClusterDNS(&cfg, nil, false) != nil {
		t.Fatal("cluster DNS made while disabled or without the pod network")
	}
}

// TestClusterDNSStartsOnAddress: in a network namespace standing for the
// node, start puts the cluster DNS address on the node, serves on its
// port 53 and reads the upstreams from --resolv-conf.
func TestClusterDNSStartsOnAddress(t *testing.T) {
	ns := netnstest.New(t, "cdns")
	conf := filepath.Join(t.TempDir(), "resolv.conf")
	if err := os.WriteFile(conf, []byte("nameserver 10.43.0.10\nnameserver 192.0.2.53\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := OpenStore(filepath.Join(t.TempDir(), StateDir))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{ResolvConf: conf, Logger: slog.Default()}
	if err := cfg.clusterDNSDefaults(); err != nil {
		t.Fatal(err)
	}
	c := newClusterDNS(cfg, store, true)
	if err := ns.Do(func() error { return c.start(t.Context()) }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.srv.Stop)
	c.refresh()
	var resp *mdns.Msg
	if err := ns.Do(func() error {
		m := new(mdns.Msg)
		m.SetQuestion("nothing.cluster.local.", mdns.TypeA)
		resp, _, err = (&mdns.Client{Net: "tcp", Timeout: 2 * time.Second}).Exchange(m, "10.43.0.10:53")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if resp.Rcode != mdns.RcodeNameError || !resp.Authoritative {
		t.Fatalf("got rcode %s, authoritative %v; want an authoritative NXDOMAIN", mdns.RcodeToString[resp.Rcode], resp.Authoritative)
	}
	if got := c.srv.Upstreams(); !slices.Equal(got, []string{"192.0.2.53:53"}) {
		t.Fatalf("upstreams %q, want the file's without the server's own address", got)
	}
}
