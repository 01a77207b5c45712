package policy

import (
	"fmt"
	"testing"
)

type expect struct {
	p    packet
	want bool
}

func ok(p packet) expect      { return expect{p, true} }
func blocked(p packet) expect { return expect{p, false} }

const denyProd = `{metadata: {namespace: prod, name: deny}, spec: {podSelector: {}, policyTypes: [Ingress]}}`

var compileCases = []struct {
	name     string
	policies []string
	expects  []expect
}{
	{"no policy allows everything", nil, []expect{
		ok(tcp(prodClient, prodWeb, 1)), ok(tcp(prodWeb, outside, 443)), ok(udp(outside, devWeb, 53))}},
	{"default deny ingress isolates the namespace only", []string{denyProd}, []expect{
		blocked(tcp(prodClient, prodWeb, 8080)), blocked(tcp(devWeb, prodDB, 5432)), blocked(tcp(outside, prodWeb, 80)),
		ok(tcp(prodClient, devWeb, 80)), ok(tcp(prodWeb, outside, 443)), ok(tcp(prodWeb, devWeb, 80))}},
	{"podSelector peer in the policy's namespace", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {matchLabels: {app: web}}, ingress: [{from: [{podSelector: {matchLabels: {role: client}}}]}]}}`}, []expect{
		ok(tcp(prodClient, prodWeb, 8080)), blocked(tcp(prodOther, prodWeb, 8080)), blocked(tcp(devClient, prodWeb, 8080)),
		blocked(tcp(hostNet, prodWeb, 8080)), ok(tcp(prodOther, prodDB, 5432))}},
	{"namespaceSelector alone takes every pod there", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {}, ingress: [{from: [{namespaceSelector: {matchLabels: {team: b}}}]}]}}`}, []expect{
		ok(tcp(devClient, prodWeb, 1)), ok(tcp(devWeb, prodDB, 5432)), blocked(tcp(prodClient, prodWeb, 1))}},
	{"namespaceSelector and podSelector in one peer intersect", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {}, ingress: [{from: [{namespaceSelector: {matchLabels: {team: b}}, podSelector: {matchLabels: {role: client}}}]}]}}`}, []expect{
		ok(tcp(devClient, prodWeb, 1)), blocked(tcp(devWeb, prodWeb, 1)), blocked(tcp(prodClient, prodWeb, 1))}},
	{"two peers are a union", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {}, ingress: [{from: [{namespaceSelector: {matchLabels: {team: b}}}, {podSelector: {matchLabels: {role: client}}}]}]}}`}, []expect{
		ok(tcp(devWeb, prodWeb, 1)), ok(tcp(prodClient, prodWeb, 1)), blocked(tcp(prodOther, prodWeb, 1)), blocked(tcp(othClient, prodWeb, 1))}},
	{"empty namespaceSelector means all namespaces", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {}, ingress: [{from: [{namespaceSelector: {}, podSelector: {matchLabels: {role: client}}}]}]}}`}, []expect{
		ok(tcp(othClient, prodWeb, 1)), ok(tcp(devClient, prodWeb, 1)), ok(tcp(prodClient, prodWeb, 1)), blocked(tcp(prodOther, prodWeb, 1))}},
	{"the namespace name label is always there", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {}, ingress: [{from: [{namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [other]}]}}]}]}}`}, []expect{
		ok(tcp(othClient, prodWeb, 1)), blocked(tcp(devClient, prodWeb, 1))}},
	{"ipBlock with except", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {}, ingress: [{from: [{ipBlock: {cidr: 10.0.1.0/24, except: [10.0.1.4/32]}}]}]}}`}, []expect{
		ok(tcp(prodClient, prodWeb, 1)), ok(tcp(othClient, prodWeb, 1)), blocked(tcp(devClient, prodWeb, 1)), blocked(tcp(devWeb, prodWeb, 1))}},
	{"numbered port and protocol", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {}, ingress: [{ports: [{port: 8080}, {protocol: UDP, port: 53}]}]}}`}, []expect{
		ok(tcp(outside, prodWeb, 8080)), blocked(tcp(outside, prodWeb, 8081)), blocked(udp(outside, prodWeb, 8080)),
		ok(udp(outside, prodDB, 53)), blocked(tcp(outside, prodDB, 53))}},
	{"endPort is a range", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {}, ingress: [{ports: [{port: 8000, endPort: 8100}]}]}}`}, []expect{
		ok(tcp(outside, prodWeb, 8000)), ok(tcp(outside, prodWeb, 8100)), blocked(tcp(outside, prodWeb, 8101)), blocked(tcp(outside, prodWeb, 7999))}},
	{"protocol without port is every port", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {}, ingress: [{ports: [{protocol: UDP}]}]}}`}, []expect{
		ok(udp(outside, prodWeb, 9)), blocked(tcp(outside, prodWeb, 9))}},
	{"named port resolves on each destination pod", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {}, ingress: [{ports: [{port: http}]}]}}`, `{metadata: {namespace: dev, name: p},
		spec: {podSelector: {}, ingress: [{ports: [{port: http}, {port: dns, protocol: UDP}]}]}}`}, []expect{
		ok(tcp(outside, prodWeb, 8080)), blocked(tcp(outside, prodWeb, 80)), blocked(tcp(outside, prodDB, 8080)),
		ok(tcp(outside, devWeb, 80)), blocked(tcp(outside, devWeb, 8080)), blocked(udp(outside, devWeb, 53))}},
	{"named port needs the same protocol", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {matchLabels: {app: web}}, ingress: [{ports: [{port: dns, protocol: UDP}, {port: dns}]}]}}`}, []expect{
		ok(udp(outside, prodWeb, 53)), blocked(tcp(outside, prodWeb, 53))}},
	{"egress rules without policyTypes isolate both ways", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {matchLabels: {app: web}}, egress: [{to: [{podSelector: {matchLabels: {app: db}}}], ports: [{port: 5432}]}]}}`}, []expect{
		ok(tcp(prodWeb, prodDB, 5432)), blocked(tcp(prodWeb, prodDB, 22)), blocked(tcp(prodWeb, outside, 443)),
		blocked(tcp(prodClient, prodWeb, 8080)), ok(tcp(prodDB, outside, 443))}},
	{"policyTypes Egress alone leaves ingress open", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {}, policyTypes: [Egress]}}`}, []expect{
		blocked(tcp(prodWeb, outside, 443)), blocked(tcp(prodWeb, prodDB, 5432)), ok(tcp(outside, prodWeb, 8080)), ok(tcp(devWeb, outside, 1))}},
	{"egress named port resolves on the peer", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {matchLabels: {app: web}}, policyTypes: [Egress], egress: [{to: [{namespaceSelector: {matchLabels: {team: b}}}], ports: [{port: http}]}]}}`}, []expect{
		ok(tcp(prodWeb, devWeb, 80)), blocked(tcp(prodWeb, devWeb, 8080)), blocked(tcp(prodWeb, devClient, 80)), blocked(tcp(prodWeb, outside, 80))}},
	{"egress named port without peers matches any pod having it", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {matchLabels: {app: db}}, policyTypes: [Egress], egress: [{ports: [{port: http}]}]}}`}, []expect{
		ok(tcp(prodDB, devWeb, 80)), ok(tcp(prodDB, prodWeb, 8080)), blocked(tcp(prodDB, prodWeb, 80)), blocked(tcp(prodDB, outside, 80))}},
	{"egress ipBlock everything but the cluster", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {}, policyTypes: [Egress], egress: [{to: [{ipBlock: {cidr: 0.0.0.0/0, except: [10.0.0.0/8]}}]}]}}`}, []expect{
		ok(tcp(prodWeb, outside, 443)), ok(tcp(prodWeb, "255.255.255.254", 1)), blocked(tcp(prodWeb, prodClient, 1)), blocked(tcp(prodDB, devWeb, 80))}},
	{"policies add up", []string{denyProd, `{metadata: {namespace: prod, name: web},
		spec: {podSelector: {matchLabels: {app: web}}, ingress: [{from: [{podSelector: {matchLabels: {role: client}}}], ports: [{port: 8080}]}]}}`,
		`{metadata: {namespace: prod, name: db}, spec: {podSelector: {matchLabels: {app: db}}, ingress: [{from: [{podSelector: {matchLabels: {app: web}}}]}]}}`}, []expect{
		ok(tcp(prodClient, prodWeb, 8080)), blocked(tcp(prodClient, prodWeb, 9090)), blocked(tcp(prodClient, prodDB, 5432)),
		ok(tcp(prodWeb, prodDB, 5432)), blocked(tcp(prodOther, prodWeb, 8080))}},
	{"both ends isolated: egress of one and ingress of the other must allow", []string{
		`{metadata: {namespace: prod, name: e}, spec: {podSelector: {matchLabels: {app: web}}, policyTypes: [Egress], egress: [{to: [{podSelector: {matchLabels: {app: db}}}]}]}}`,
		`{metadata: {namespace: prod, name: i}, spec: {podSelector: {matchLabels: {app: db}}, ingress: [{from: [{podSelector: {matchLabels: {app: web}}}], ports: [{port: 5432}]}]}}`}, []expect{
		ok(tcp(prodWeb, prodDB, 5432)), blocked(tcp(prodWeb, prodDB, 22)), blocked(tcp(prodWeb, devWeb, 80))}},
	{"an empty ingress rule allows everything", []string{`{metadata: {namespace: prod, name: p}, spec: {podSelector: {}, ingress: [{}]}}`}, []expect{
		ok(tcp(outside, prodWeb, 1)), ok(udp(devClient, prodDB, 9))}},
	{"a rule whose peers match no pod allows nothing", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {}, ingress: [{from: [{podSelector: {matchLabels: {role: nobody}}}]}]}}`}, []expect{
		blocked(tcp(prodClient, prodWeb, 1)), blocked(tcp(outside, prodWeb, 1))}},
	{"a policy selecting no local pod changes nothing", []string{`{metadata: {namespace: prod, name: p},
		spec: {podSelector: {matchLabels: {app: nothing}}, policyTypes: [Ingress, Egress]}}`}, []expect{
		ok(tcp(prodClient, prodWeb, 1)), ok(tcp(prodWeb, outside, 1))}},
}

func TestCompile(t *testing.T) {
	for _, tc := range compileCases {
		t.Run(tc.name, func(t *testing.T) {
			rs := Compile(fixture(t, tc.policies...))
			if len(rs.Problems) > 0 {
				t.Fatalf("problems: %v", rs.Problems)
			}
			for _, e := range tc.expects {
				if got := allowed(t, rs, e.p); got != e.want {
					t.Errorf("%s: got allowed=%v, want %v", describe(e.p), got, e.want)
				}
			}
		})
	}
}

func describe(p packet) string {
	return fmt.Sprintf("%s -> %s proto %d port %d", p.src, p.dst, p.proto, p.port)
}
