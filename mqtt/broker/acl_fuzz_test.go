package broker

import (
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
)

// matches reports whether MQTT filter matches topic (3.1.1 section 4.7).
func matches(filter, topic string) bool {
	f, tp := strings.Split(filter, "/"), strings.Split(topic, "/")
	for i, level := range f {
		switch {
		case level == "#":
			return true
		case i >= len(tp):
			return false
		case level != "+" && level != tp[i]:
			return false
		}
	}
	return len(f) == len(tp)
}

// FuzzTopicACL checks the topic rules against what they must mean, for any
// node name, topic and filter a client could send: a node writes only
// inside its subtree; a filter a node may subscribe to matches no topic of
// another node nor of watch/; a viewer's filter matches only watch topics.
func FuzzTopicACL(f *testing.F) {
	f.Add("pi-1", "bramble/v1/nodes/pi-1/desired", "bramble/v1/nodes/pi-1/#")
	f.Add("pi-1", "bramble/v1/nodes/pi-2/desired", "bramble/v1/nodes/+/desired")
	f.Add("pi-1", "bramble/v1/watch/pods/default/p", "#")
	f.Add("a.b", "bramble/v1/nodes/a.b/x", "bramble/v1/nodes/a.b/+")
	f.Add("pi-1", "bramble/v1/nodes/pi-1", "bramble/v1/nodes/pi-1/#")
	f.Add("+", "bramble/v1/nodes/x/desired", "bramble/v1/nodes/+/desired")
	f.Add("pi-1", "bramble/v1/watch", "bramble/v1/watch/#")
	f.Fuzz(func(t *testing.T, name, topic, filter string) {
		id, ok := parseIdentityKey("node:" + name)
		if !ok {
			if validNodeName(name) == nil {
				t.Fatalf("valid node name %q has no identity", name)
			}
			return
		}
		if id.mayWrite(topic) {
			if n, ok := mqtt.NodeOfTopic(topic); !ok || n != name || strings.ContainsAny(topic, "+#") {
				t.Fatalf("node %q may write %q, outside its subtree", name, topic)
			}
		}
		viewer := identity{kind: kindViewer, name: "v"}
		if viewer.mayWrite(topic) {
			t.Fatalf("viewer may write %q", topic)
		}
		if id.mayRead(filter) && matches(filter, topic) && topic != strings.TrimSuffix(mqtt.NodeSubtree(name), "/") {
			if n, ok := mqtt.NodeOfTopic(topic); !ok || n != name {
				t.Fatalf("node %q may subscribe %q, which matches %q", name, filter, topic)
			}
		}
		// A trailing # also matches its parent level: bramble/v1/watch
		// itself, and a node's bare bramble/v1/nodes/<name>; only the server
		// can publish there.
		if viewer.mayRead(filter) && matches(filter, topic) && !strings.HasPrefix(topic, mqtt.WatchPrefix) && topic+"/" != mqtt.WatchPrefix {
			t.Fatalf("viewer may subscribe %q, which matches %q", filter, topic)
		}
	})
}

// FuzzParseMosquittoACL: whatever the file holds, parsing never panics,
// and what parses renders to a file that parses to the same content.
func FuzzParseMosquittoACL(f *testing.F) {
	seed, _ := MosquittoACL{Servers: []string{DefaultServerName}, Nodes: []string{"pi-1"}, Viewers: []string{"alice"}}.Render()
	f.Add(seed)
	f.Add([]byte("user x\ntopic read bramble/v1/watch/#\n"))
	f.Add([]byte("topic readwrite #\n"))
	f.Add([]byte("user system:node:pi-1\ntopic readwrite bramble/v1/nodes/pi-2/#\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		acl, err := ParseMosquittoACL(data)
		if err != nil {
			return
		}
		out, err := acl.Render()
		if err != nil {
			t.Fatalf("parsed ACL does not render: %v", err)
		}
		again, err := ParseMosquittoACL(out)
		if err != nil {
			t.Fatalf("rendered ACL does not parse: %v\n%s", err, out)
		}
		if out2, _ := again.Render(); string(out2) != string(out) {
			t.Fatalf("render is not stable:\n%s\n---\n%s", out, out2)
		}
	})
}
