package broker

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"testing"

	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
)

func certWith(cn string, orgs ...string) *x509.Certificate {
	return &x509.Certificate{Subject: pkix.Name{CommonName: cn, Organization: orgs}}
}

func TestIdentityFromCert(t *testing.T) {
	ok := map[string]struct {
		cert *x509.Certificate
		want identity
	}{
		"node":               {certWith("system:node:pi-1", join.NodeGroup), identity{kindNode, "pi-1"}},
		"node with dots":     {certWith("system:node:pi-1.lab", join.NodeGroup, "other"), identity{kindNode, "pi-1.lab"}},
		"viewer":             {certWith("alice", ViewerGroup), identity{kindViewer, "alice"}},
		"viewer extra group": {certWith("dash-1", "x", ViewerGroup), identity{kindViewer, "dash-1"}},
	}
	for name, c := range ok {
		got, err := identityFromCert(c.cert)
		if err != nil || got != c.want {
			t.Errorf("%s: got %+v, %v; want %+v", name, got, err, c.want)
		}
	}
	bad := map[string]*x509.Certificate{
		"no group":              certWith("system:node:pi-1"),
		"admin":                 certWith("admin", "system:masters"),
		"server":                certWith(DefaultServerName, ServerGroup),
		"node group, other CN":  certWith("pi-1", join.NodeGroup),
		"node, empty name":      certWith("system:node:", join.NodeGroup),
		"node, wildcard":        certWith("system:node:+", join.NodeGroup),
		"node, slash":           certWith("system:node:a/b", join.NodeGroup),
		"node, hash":            certWith("system:node:#", join.NodeGroup),
		"node, upper case":      certWith("system:node:Pi", join.NodeGroup),
		"both groups":           certWith("system:node:pi-1", join.NodeGroup, ViewerGroup),
		"viewer, system prefix": certWith("system:node:pi-1", ViewerGroup),
		"viewer, admin":         certWith("admin", ViewerGroup),
		"viewer, dot":           certWith("a.b", ViewerGroup),
		"viewer, empty":         certWith("", ViewerGroup),
	}
	for name, cert := range bad {
		if got, err := identityFromCert(cert); !errors.Is(err, ErrIdentity) {
			t.Errorf("%s: got %+v, %v; want an error wrapping ErrIdentity", name, got, err)
		}
	}
}

func TestTopicRules(t *testing.T) {
	node, viewer := identity{kindNode, "pi-1"}, identity{kindViewer, "alice"}
	cases := []struct {
		id          identity
		topic       string
		read, write bool
	}{
		{node, "bramble/v1/nodes/pi-1/desired", true, true},
		{node, "bramble/v1/nodes/pi-1/rpc/resp/42", true, true},
		{node, "bramble/v1/nodes/pi-1/#", true, false},
		{node, "bramble/v1/nodes/pi-1/+/status", true, false},
		{node, "bramble/v1/nodes/pi-1/", false, false},
		{node, "bramble/v1/nodes/pi-1", false, false},
		{node, "bramble/v1/nodes/pi-10/desired", false, false},
		{node, "bramble/v1/nodes/pi-1.x/desired", false, false},
		{node, "bramble/v1/nodes/pi-2/desired", false, false},
		{node, "bramble/v1/nodes/+/desired", false, false},
		{node, "bramble/v1/nodes/#", false, false},
		{node, "#", false, false},
		{node, "+/v1/nodes/pi-1/desired", false, false},
		{node, "$share/g/bramble/v1/nodes/pi-1/desired", false, false},
		{node, "bramble/v1/watch/pods/default/p", false, false},
		{node, "", false, false},
		{viewer, "bramble/v1/watch/pods/default/p", true, false},
		{viewer, "bramble/v1/watch/#", true, false},
		{viewer, "bramble/v1/watch/", false, false},
		{viewer, "bramble/v1/#", false, false},
		{viewer, "bramble/v1/nodes/pi-1/desired", false, false},
		{viewer, "#", false, false},
		{identity{}, "bramble/v1/watch/x", false, false},
	}
	for _, c := range cases {
		if got := c.id.mayRead(c.topic); got != c.read {
			t.Errorf("%s may read %q: got %v, want %v", c.id.key(), c.topic, got, c.read)
		}
		if got := c.id.mayWrite(c.topic); got != c.write {
			t.Errorf("%s may write %q: got %v, want %v", c.id.key(), c.topic, got, c.write)
		}
	}
	if !node.mayRetain(mqtt.PresenceTopic("pi-1")) || node.mayRetain(mqtt.StatusTopic("pi-1")) ||
		node.mayRetain(mqtt.PresenceTopic("pi-2")) || viewer.mayRetain(mqtt.WatchPrefix+"x") {
		t.Error("retain: want only the node's own presence topic")
	}
}

func TestIdentityKeyRoundTrip(t *testing.T) {
	for _, id := range []identity{{kindNode, "pi-1"}, {kindNode, "a.b.c"}, {kindViewer, "alice"}} {
		got, ok := parseIdentityKey(id.key())
		if !ok || got != id {
			t.Errorf("parseIdentityKey(%q): got %+v, %v; want %+v", id.key(), got, ok, id)
		}
	}
	for _, s := range []string{"", "node:", "viewer:", "node:Pi", "viewer:a.b", "admin:x", "node", "viewer:admin"} {
		if got, ok := parseIdentityKey(s); ok {
			t.Errorf("parseIdentityKey(%q): got %+v, want no identity", s, got)
		}
	}
}
