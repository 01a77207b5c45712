package checkconfig

import (
	"errors"
	"strings"
	"testing"
)

// TestNetModules: loaded, built-in, on disk but not loaded, and missing
// modules on fake roots, each named with what to do.
func TestNetModules(t *testing.T) {
	const dir = "lib/modules/6.1.0-26-amd64/"
	base := with(debianV1(), map[string]string{
		"sys/module/bridge/": "", "sys/module/vxlan/": "",
		"proc/sys/net/bridge/bridge-nf-call-iptables": "1\n",
		dir + "modules.builtin":                       "kernel/net/netfilter/nf_tables.ko\n",
	})
	tests := []struct {
		name  string
		files map[string]string
		probe func() error
		want  map[string]Status
		says  map[string]string
	}{
		{name: "all present", files: base,
			want: map[string]Status{"module bridge": OK, "module br_netfilter": OK, "module vxlan": OK,
				"module nf_tables": OK, "bridge-nf-call-iptables": OK}},
		{name: "vxlan on disk, not loaded", files: with(base, map[string]string{
			"sys/module/vxlan/": "-", dir + "modules.dep": "kernel/drivers/net/vxlan/vxlan.ko.xz: kernel/net/ipv4/udp_tunnel.ko.xz\n"}),
			want: map[string]Status{"module vxlan": Warn},
			says: map[string]string{"module vxlan": "modprobe vxlan && echo vxlan >> /etc/modules-load.d/bramble.conf"}},
		{name: "bridge and nf_tables missing", files: with(base, map[string]string{"sys/module/bridge/": "-", dir + "modules.builtin": "-"}),
			probe: func() error { return errors.New("protocol not supported") },
			want:  map[string]Status{"module bridge": Fail, "module nf_tables": Fail},
			says:  map[string]string{"module bridge": "CONFIG_BRIDGE", "module nf_tables": "CONFIG_NF_TABLES"}},
		{name: "nf_tables built in without a trace but answering", files: with(base, map[string]string{dir + "modules.builtin": "-"}),
			probe: func() error { return nil }, want: map[string]Status{"module nf_tables": OK}},
		{name: "br_netfilter missing", files: with(base, map[string]string{"proc/sys/net/bridge/bridge-nf-call-iptables": "-"}),
			want: map[string]Status{"module br_netfilter": Warn, "bridge-nf-call-iptables": Warn},
			says: map[string]string{"module br_netfilter": "CONFIG_BRIDGE_NETFILTER"}},
		{name: "bridge-nf-call-iptables off", files: with(base, map[string]string{"proc/sys/net/bridge/bridge-nf-call-iptables": "0\n"}),
			want: map[string]Status{"bridge-nf-call-iptables": Warn},
			says: map[string]string{"bridge-nf-call-iptables": "sysctl -w net.bridge.bridge-nf-call-iptables=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Report{Checks: checkNetModules(fakeRoot(t, tt.files), tt.probe)}
			for name, want := range tt.want {
				c, ok := r.Find(name)
				if !ok || c.Status != want {
					t.Errorf("%s: got %s (%s), want %s", name, c.Status, c.Message, want)
				}
				if s := tt.says[name]; !strings.Contains(c.Message, s) {
					t.Errorf("%s: got message %q, want it to say %q", name, c.Message, s)
				}
			}
		})
	}
}
