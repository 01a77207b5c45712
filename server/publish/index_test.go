package publish

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// history feeds hand-made events to an index, with the previous value of
// each key, as the datastore would.
type history struct {
	t    *testing.T
	x    *index
	rev  int64
	last map[string]*datastore.KeyValue
}

func newHistory(t *testing.T) *history {
	return &history{t: t, x: newIndex(), last: map[string]*datastore.KeyValue{}}
}

func podValue(node string, configMaps ...string) string {
	var vols []string
	for i, cm := range configMaps {
		vols = append(vols, fmt.Sprintf(`{"name":"v%d","configMap":{"name":%q}}`, i, cm))
	}
	return fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"x"},"spec":{"nodeName":%q,"volumes":[%s],"containers":[{"name":"a","image":"b"}]}}`,
		node, strings.Join(vols, ","))
}

// write applies a create/update (value != "") or delete (value == "") of
// res/name and returns the changes as "node: TYPE resource/name" lines.
func (h *history) write(res, name, value string) []string {
	h.t.Helper()
	h.rev++
	key := "/registry/core/" + res + "/default/" + name
	prev := h.last[key]
	ev := datastore.Event{Revision: h.rev, PrevKV: prev}
	switch {
	case value == "":
		ev.Type, ev.KV = datastore.EventDelete, &datastore.KeyValue{Key: key, Value: prev.Value, ModRevision: h.rev}
		delete(h.last, key)
	case prev == nil:
		ev.Type, ev.KV = datastore.EventCreate, &datastore.KeyValue{Key: key, Value: []byte(value), ModRevision: h.rev}
	default:
		ev.Type, ev.KV = datastore.EventUpdate, &datastore.KeyValue{Key: key, Value: []byte(value), ModRevision: h.rev}
	}
	if value != "" {
		h.last[key] = ev.KV
	}
	ref, ok := parseKey(key)
	if !ok {
		h.t.Fatalf("parseKey(%q) failed", key)
	}
	out, err := h.x.apply(ref, &ev)
	if err != nil {
		h.t.Fatal(err)
	}
	var lines []string
	for _, node := range out.order {
		for _, c := range out.of(node) {
			lines = append(lines, fmt.Sprintf("%s: %s %s/%s", node, c.typ, c.ref.Resource, c.ref.Name))
		}
	}
	return lines
}

func TestIndexFansOutToNodeViews(t *testing.T) {
	h := newHistory(t)
	steps := []struct {
		res, name, value string
		want             []string
	}{
		{"configmaps", "conf", `{"data":{"a":"1"}}`, nil},
		{"pods", "web", podValue("pi-1", "conf", "later"), []string{"pi-1: ADDED configmaps/conf", "pi-1: ADDED pods/web"}},
		{"configmaps", "conf", `{"data":{"a":"2"}}`, []string{"pi-1: MODIFIED configmaps/conf"}},
		{"configmaps", "later", `{}`, []string{"pi-1: ADDED configmaps/later"}},
		{"pods", "web", podValue("pi-1", "conf", "later"), []string{"pi-1: MODIFIED pods/web"}},
		{"pods", "db", podValue("pi-2", "conf"), []string{"pi-2: ADDED configmaps/conf", "pi-2: ADDED pods/db"}},
		{"configmaps", "conf", `{"data":{"a":"3"}}`, []string{"pi-1: MODIFIED configmaps/conf", "pi-2: MODIFIED configmaps/conf"}},
		{"pods", "extra", podValue("pi-1", "conf"), []string{"pi-1: ADDED pods/extra"}},
		{"pods", "web", "", []string{"pi-1: DELETED pods/web", "pi-1: DELETED configmaps/later"}},
		{"pods", "pending", podValue("", "conf"), nil},
		{"pods", "pending", podValue("pi-3", "conf"), []string{"pi-3: ADDED configmaps/conf", "pi-3: ADDED pods/pending"}},
		{"configmaps", "conf", "", []string{"pi-1: DELETED configmaps/conf", "pi-2: DELETED configmaps/conf", "pi-3: DELETED configmaps/conf"}},
		{"pods", "db", "", []string{"pi-2: DELETED pods/db"}},
		{"configmaps", "conf", `{}`, []string{"pi-1: ADDED configmaps/conf", "pi-3: ADDED configmaps/conf"}},
		{"secrets", "unused", `{}`, nil},
	}
	for i, s := range steps {
		if got := h.write(s.res, s.name, s.value); !reflect.DeepEqual(got, s.want) {
			t.Errorf("step %d (%s %s): got %q, want %q", i, s.res, s.name, got, s.want)
		}
	}
	if in, _ := h.x.inView("pi-2", mqtt.ObjectRef{Resource: "configmaps", Namespace: "default", Name: "conf"}); in {
		t.Error("pi-2 still has configmaps/conf in view after its pod left: got true, want false")
	}
	if len(h.x.users[mqtt.ObjectRef{Resource: "configmaps", Namespace: "default", Name: "later"}]) != 0 {
		t.Error("reference counts of configmaps/later not cleaned up")
	}
}

func TestParseKey(t *testing.T) {
	cases := map[string]string{
		"/registry/core/pods/default/web":        "pods/default/web",
		"/registry/core/nodes/pi-1":              "nodes/pi-1",
		"/registry/apps/deployments/shop/front":  "deployments/shop/front",
		"/registry/core/pods/default":            "",
		"/registry/core/pods/default/web/status": "",
		"/registry/core/widgets/default/a":       "",
		"/bramble/nodecerts/pi-1":                "",
	}
	for key, want := range cases {
		ref, ok := parseKey(key)
		got := ""
		if ok {
			got = ref.String()
		}
		if got != want {
			t.Errorf("parseKey(%q): got %q, want %q", key, got, want)
		}
	}
}

func TestWithResourceVersion(t *testing.T) {
	out, err := withResourceVersion([]byte(`{"kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"y"}},"data":{"k":"v"}}`), 42)
	if err != nil {
		t.Fatal(err)
	}
	var obj struct {
		Kind     string
		Metadata map[string]any
		Data     map[string]string
	}
	if err := json.Unmarshal(out, &obj); err != nil {
		t.Fatal(err)
	}
	if obj.Metadata["resourceVersion"] != "42" || obj.Metadata["name"] != "a" || obj.Data["k"] != "v" || obj.Kind != "ConfigMap" {
		t.Errorf("got %s, want the object with resourceVersion \"42\" and everything else kept", out)
	}
	if _, err := withResourceVersion([]byte(`[1]`), 1); err == nil {
		t.Error("withResourceVersion of a non-object: got no error, want one")
	}
}
