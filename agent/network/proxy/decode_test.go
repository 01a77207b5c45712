package proxy

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	svc, _ := json.Marshal(service("web", "10.43.0.10", web))
	sl, _ := json.Marshal(slice("web", "web-1", web8k, podA))
	in := Input{Node: "n1"}
	errs := Decode(&in, map[string][]byte{"ns/web": svc, "ns/bad": []byte(`{"spec":`)}, map[string][]byte{"ns/web-1": sl})
	if len(errs) != 1 || len(in.Services) != 1 || len(in.Slices) != 1 {
		t.Fatalf("got %d services, %d slices, errors %v; want 1, 1 and one error naming ns/bad", len(in.Services), len(in.Slices), errs)
	}
	p := Compile(in)
	if len(p.Ports) != 1 || len(p.Ports[0].Cluster) != 1 || p.Ports[0].Cluster[0] != (Endpoint{addr("10.77.0.2"), 8080}) {
		t.Errorf("compiled %+v", p.Ports)
	}
}

// FuzzDecode: whatever arrives over MQTT, decoding, compiling and
// rendering never panic, and every chain and set is the proxy's.
func FuzzDecode(f *testing.F) {
	svc, _ := json.Marshal(service("web", "10.43.0.10", web, nodePort("http", 30001), affinity, externalLocal))
	sl, _ := json.Marshal(slice("web", "web-1", web8k, podA, podB))
	f.Add(svc, sl)
	f.Add([]byte(`{"spec":{"clusterIP":"1.2.3.4","ports":[{"port":70000,"nodePort":-1}]}}`), []byte(`{"addressType":"IPv4","ports":[{"port":0}]}`))
	f.Fuzz(func(t *testing.T, svc, sl []byte) {
		in := Input{Node: "n1", NodeIPs: []netip.Addr{addr("192.0.2.1")}, ClusterCIDR: netip.MustParsePrefix("10.42.0.0/16")}
		Decode(&in, map[string][]byte{"a": svc}, map[string][]byte{"b": sl})
		r := Render(Compile(in))
		for _, c := range r.Chains {
			if !strings.HasPrefix(c.Name, "svc-") {
				t.Fatalf("chain %q is not the proxy's", c.Name)
			}
		}
	})
}
