package tables

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

var tableNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// render prints a table as "-o wide" would: a header of upper-cased column
// names (wide ones marked with *), then one line per row, cells joined by |.
func render(t *testing.T, tab *metav1.Table) string {
	t.Helper()
	var b strings.Builder
	for i, c := range tab.ColumnDefinitions {
		if i > 0 {
			b.WriteString("|")
		}
		b.WriteString(strings.ToUpper(c.Name))
		if c.Priority > 0 {
			b.WriteString("*")
		}
	}
	for _, r := range tab.Rows {
		if len(r.Cells) != len(tab.ColumnDefinitions) {
			t.Fatalf("row has %d cells for %d columns", len(r.Cells), len(tab.ColumnDefinitions))
		}
		b.WriteString("\n")
		for i, c := range r.Cells {
			if i > 0 {
				b.WriteString("|")
			}
			switch c.(type) {
			case string, int64:
			default:
				t.Fatalf("cell %d is %T, want string or int64", i, c)
			}
			fmt.Fprint(&b, c)
		}
	}
	return b.String()
}

// aged decodes a manifest and sets its creation time d before tableNow.
func aged(t *testing.T, kind, manifest string, d time.Duration) api.Object {
	t.Helper()
	obj := decodeYAML(t, kind, manifest)
	obj.SetCreationTimestamp(metav1.NewTime(tableNow.Add(-d)))
	return obj
}

func TestTableKinds(t *testing.T) {
	tests := []struct {
		kind     string
		manifest string
		age      time.Duration
		want     string
	}{
		{"Namespace", "metadata: {name: team}\nstatus: {phase: Active}", 49 * time.Hour,
			"NAME|STATUS|AGE\nteam|Active|2d1h"},
		{"ConfigMap", "metadata: {name: cfg}\ndata: {a: b, c: d}\nbinaryData: {e: AA==}", 90 * time.Second,
			"NAME|DATA|AGE\ncfg|3|90s"},
		{"Secret", "metadata: {name: s}\ntype: Opaque\ndata: {a: Yg==}", 5 * time.Minute,
			"NAME|TYPE|DATA|AGE\ns|Opaque|1|5m"},
		{"Lease", "metadata: {name: sched}\nspec: {holderIdentity: server-1}", time.Hour,
			"NAME|HOLDER|AGE\nsched|server-1|60m"},
		{"Node", `
metadata: {name: pi1, labels: {node-role.kubernetes.io/control-plane: "", kubernetes.io/role: edge}}
spec: {unschedulable: true}
status:
  conditions: [{type: Ready, status: "True"}]
  addresses: [{type: InternalIP, address: 10.0.0.2}]
  nodeInfo: {kubeletVersion: v1.32.0-bramble, osImage: Debian 12, kernelVersion: 6.1.0, containerRuntimeVersion: containerd://1.7.24}`,
			10 * 24 * time.Hour,
			"NAME|STATUS|ROLES|AGE|VERSION|INTERNAL-IP*|EXTERNAL-IP*|OS-IMAGE*|KERNEL-VERSION*|CONTAINER-RUNTIME*\n" +
				"pi1|Ready,SchedulingDisabled|control-plane,edge|10d|v1.32.0-bramble|10.0.0.2|<none>|Debian 12|6.1.0|containerd://1.7.24"},
		{"Node", "metadata: {name: pi2}\nstatus: {conditions: [{type: Ready, status: 'False'}]}", time.Minute,
			"NAME|STATUS|ROLES|AGE|VERSION|INTERNAL-IP*|EXTERNAL-IP*|OS-IMAGE*|KERNEL-VERSION*|CONTAINER-RUNTIME*\n" +
				"pi2|NotReady|<none>|60s||<none>|<none>|<unknown>|<unknown>|<unknown>"},
		{"Deployment", `
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template: {spec: {containers: [{name: web, image: "nginx:1"}, {name: side, image: busybox}]}}
status: {readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2}`, 3 * time.Minute,
			"NAME|READY|UP-TO-DATE|AVAILABLE|AGE|CONTAINERS*|IMAGES*|SELECTOR*\nweb|2/3|3|2|3m|web,side|nginx:1,busybox|app=web"},
		{"ReplicaSet", `
metadata: {name: web-5d8}
spec: {replicas: 2, selector: {matchLabels: {app: web, pod-template-hash: 5d8}}, template: {spec: {containers: [{name: web, image: "nginx:1"}]}}}
status: {replicas: 2, readyReplicas: 1}`, 3 * time.Minute,
			"NAME|DESIRED|CURRENT|READY|AGE|CONTAINERS*|IMAGES*|SELECTOR*\nweb-5d8|2|2|1|3m|web|nginx:1|app=web,pod-template-hash=5d8"},
		{"DaemonSet", `
metadata: {name: agent}
spec: {selector: {matchLabels: {app: a}}, template: {spec: {nodeSelector: {kubernetes.io/os: linux}, containers: [{name: a, image: a}]}}}
status: {desiredNumberScheduled: 4, currentNumberScheduled: 4, numberReady: 3, updatedNumberScheduled: 4, numberAvailable: 3}`, 2 * time.Hour,
			"NAME|DESIRED|CURRENT|READY|UP-TO-DATE|AVAILABLE|NODE SELECTOR|AGE|CONTAINERS*|IMAGES*|SELECTOR*\n" +
				"agent|4|4|3|4|3|kubernetes.io/os=linux|120m|a|a|app=a"},
		{"Job", `
metadata: {name: pi}
spec: {completions: 1, selector: {matchLabels: {batch.kubernetes.io/controller-uid: u1}}, template: {spec: {containers: [{name: pi, image: perl}]}}}
status:
  succeeded: 1
  startTime: "2026-11-21T11:58:00Z"
  completionTime: "2026-11-21T11:58:42Z"
  conditions: [{type: Complete, status: "True"}]`, 2 * time.Minute,
			"NAME|STATUS|COMPLETIONS|DURATION|AGE|CONTAINERS*|IMAGES*|SELECTOR*\npi|Complete|1/1|42s|2m|pi|perl|batch.kubernetes.io/controller-uid=u1"},
		{"Job", "metadata: {name: w}\nspec: {parallelism: 3}\nstatus: {startTime: '2026-11-21T11:59:30Z', active: 3}", time.Minute,
			"NAME|STATUS|COMPLETIONS|DURATION|AGE|CONTAINERS*|IMAGES*|SELECTOR*\nw|Running|0/1 of 3|30s|60s|||<none>"},
		{"Event", `
metadata: {name: p1.17a}
involvedObject: {kind: Pod, name: p1, fieldPath: "spec.containers{c}"}
reason: Pulled
type: Normal
message: " Pulled image \"nginx\" "
count: 3
firstTimestamp: "2026-11-21T11:00:00Z"
lastTimestamp: "2026-11-21T11:55:00Z"
source: {component: kubelet, host: pi1}`, time.Hour,
			"LAST SEEN|TYPE|REASON|OBJECT|SUBOBJECT*|SOURCE*|MESSAGE|FIRST SEEN*|COUNT*|NAME*\n" +
				"5m|Normal|Pulled|pod/p1|spec.containers{c}|kubelet, pi1|Pulled image \"nginx\"|60m|3|p1.17a"},
		{"Event", "metadata: {name: e2}\ninvolvedObject: {kind: Node}\neventTime: '2026-11-21T11:59:50.000000Z'\nreportingComponent: bramble", time.Minute,
			"LAST SEEN|TYPE|REASON|OBJECT|SUBOBJECT*|SOURCE*|MESSAGE|FIRST SEEN*|COUNT*|NAME*\n" +
				"10s|||node||bramble||10s|1|e2"},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			obj := aged(t, tc.kind, tc.manifest, tc.age)
			tab, err := Table(res(t, tc.kind), []api.Object{obj}, Options{Now: tableNow})
			if err != nil {
				t.Fatal(err)
			}
			if got := render(t, tab); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestTableObjects(t *testing.T) {
	r := res(t, "ConfigMap")
	obj := aged(t, "ConfigMap", "metadata: {name: c, namespace: ns, labels: {a: b}}\ndata: {k: v}", time.Second)
	tab, err := Table(r, []api.Object{obj}, Options{Now: tableNow})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Kind != "Table" || tab.APIVersion != "meta.k8s.io/v1" || tab.ColumnDefinitions[0].Format != "name" {
		t.Errorf("got %s %s, name format %q", tab.APIVersion, tab.Kind, tab.ColumnDefinitions[0].Format)
	}
	var meta metav1.PartialObjectMetadata
	if err := json.Unmarshal(tab.Rows[0].Object.Raw, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Kind != "PartialObjectMetadata" || meta.APIVersion != "meta.k8s.io/v1" || meta.Namespace != "ns" || meta.Labels["a"] != "b" {
		t.Errorf("row object: got %s", tab.Rows[0].Object.Raw)
	}
	tab, err = Table(r, []api.Object{obj}, Options{Now: tableNow, IncludeObject: IncludeObject, NoHeaders: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.ColumnDefinitions) != 0 || !strings.Contains(string(tab.Rows[0].Object.Raw), `"kind":"ConfigMap","apiVersion":"v1"`) ||
		!strings.Contains(string(tab.Rows[0].Object.Raw), `"data":{"k":"v"}`) {
		t.Errorf("Object, NoHeaders: got columns %v, object %s", tab.ColumnDefinitions, tab.Rows[0].Object.Raw)
	}
	tab, err = Table(r, []api.Object{obj}, Options{Now: tableNow, IncludeObject: IncludeNone})
	if err != nil || tab.Rows[0].Object.Raw != nil {
		t.Errorf("None: got object %s, err %v", tab.Rows[0].Object.Raw, err)
	}
	if _, err := Table(r, []api.Object{obj}, Options{IncludeObject: "Everything"}); err == nil {
		t.Error("bad includeObject: got no error")
	}
	if _, err := Table(res(t, "Secret"), []api.Object{obj}, Options{}); err == nil {
		t.Error("configmap in a secret table: got no error")
	}
	empty, err := Table(r, nil, Options{})
	if err != nil || empty.Rows == nil || len(empty.Rows) != 0 {
		t.Errorf("empty: got rows %#v, err %v", empty.Rows, err)
	}
	data, err := api.EncodeObject(empty)
	if err != nil || !strings.Contains(string(data), `"rows":[]`) {
		t.Errorf("empty table encodes as %s, %v; want rows: []", data, err)
	}
	if got := tab.DeepCopy(); len(got.Rows[0].Cells) != 3 {
		t.Error("deep copy lost cells")
	}
}

func TestTableGeneric(t *testing.T) {
	r := api.NewUnstructured(api.Resource{Group: "example.bramble.dev", Version: "v1", Name: "things", Kind: "Thing", Namespaced: true})
	obj, _, err := api.DecodeJSON(r, []byte(`{"metadata":{"name":"c"},"spec":{"a":1}}`), true)
	if err != nil {
		t.Fatal(err)
	}
	obj.SetCreationTimestamp(metav1.NewTime(tableNow.Add(-time.Second)))
	tab, err := Table(r, []api.Object{obj}, Options{Now: tableNow, IncludeObject: IncludeMetadata})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tab.Rows[0].Object.Raw), `"name":"c"`) {
		t.Errorf("row object %s lacks the metadata", tab.Rows[0].Object.Raw)
	}
	if got := render(t, tab); got != "NAME|AGE\nc|1s" {
		t.Errorf("got %q", got)
	}
}

// FuzzTable prints whatever a client may store: decoding accepted it, so
// printing it must not fail or panic.
func FuzzTable(f *testing.F) {
	f.Add(uint8(0), []byte(`{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}]},"status":{"phase":"Running"}}`))
	f.Add(uint8(3), []byte(`{"metadata":{"name":"d"},"spec":{"replicas":3}}`))
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		all := api.All()
		r := all[int(kind)%len(all)]
		obj, _, err := api.DecodeJSON(r, body, false)
		if err != nil {
			return
		}
		if _, err := Table(r, []api.Object{obj}, Options{Now: time.Unix(1e9, 0), IncludeObject: IncludeObject}); err != nil {
			t.Fatalf("table of a decoded %s: %v", r.Kind, err)
		}
	})
}
