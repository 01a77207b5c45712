//go:build chaos

package chaos

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/agent"
	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/mqtt"
)

// A node's state is compared with the server's object by object: the
// server's side is the node's full view (mqtt.ViewPath, read as admin,
// what a relist would hand the node) and, as a second witness, the pods
// the API lists on the node; the node's side is its local store, opened
// from a copy of <data-dir>/agent/state. Pod status and the bookkeeping
// every status write changes (resourceVersion, managedFields) are left
// out: the node is where pod status comes from, and the server does not
// send status-only writes back (server/publish/statusonly.go).

// nodeResources are the resources a node's store may hold; the store's
// file names and the view may name more.
var nodeResources = []string{"pods", "configmaps", "secrets", "nodes", "services", "endpointslices"}

// serverView is node's full view as the server has it, canonical.
func serverView(t *testing.T, c *cluster.Client, node string) map[string]any {
	t.Helper()
	r := c.Do(http.MethodGet, mqtt.ViewPath(node)+"?since=0", "", nil)
	if r.Code != http.StatusOK {
		t.Fatalf("view of %s: got %d %s", node, r.Code, r.Body)
	}
	v, err := mqtt.DecodeView(r.Body)
	if err != nil || !v.Full {
		t.Fatalf("view of %s: full %v, %v", node, v != nil && v.Full, err)
	}
	out := map[string]any{}
	for _, ch := range v.Changes {
		out[ch.ObjectRef.String()] = canonical(t, ch.Object)
	}
	return out
}

// nodeStore is what node's local store holds of resources (and of those
// its files name), canonical. The store is read from a copy: opening it
// replays and folds its journal.
func nodeStore(t *testing.T, a *cluster.Agent, resources map[string]bool) (map[string]any, error) {
	t.Helper()
	src := filepath.Join(a.DataDir, "agent", agent.StateDir)
	dst := filepath.Join(t.TempDir(), "state")
	if err := copyDir(src, dst); err != nil {
		return nil, err
	}
	st, err := agent.OpenStore(dst)
	if err != nil {
		return nil, err // a fold caught half way: read again
	}
	defer st.Close()
	entries, _ := os.ReadDir(dst)
	for _, e := range entries {
		if res, _, ok := strings.Cut(e.Name(), "_"); ok {
			resources[res] = true
		}
	}
	out := map[string]any{}
	for res := range resources {
		for ref, obj := range st.List(res) {
			out[ref.String()] = canonical(t, obj)
		}
	}
	return out, os.RemoveAll(dst)
}

func copyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			continue // removed by a fold meanwhile
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// canonical decodes an object without what a status write changes.
func canonical(t *testing.T, raw []byte) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("object %.200s: %v", raw, err)
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "resourceVersion")
		delete(md, "managedFields")
	}
	return m
}

// apiPods names the pods the API lists on node: namespace/name.
func apiPods(t *testing.T, c *cluster.Client, node string) []string {
	t.Helper()
	r := c.Do(http.MethodGet, "/api/v1/pods?fieldSelector=spec.nodeName%3D"+node, "", nil)
	if r.Code != http.StatusOK {
		t.Fatalf("list pods on %s: got %d %s", node, r.Code, r.Body)
	}
	var list struct {
		Items []struct {
			Metadata struct{ Namespace, Name string }
		}
	}
	if err := json.Unmarshal(r.Body, &list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range list.Items {
		out = append(out, "pods/"+p.Metadata.Namespace+"/"+p.Metadata.Name)
	}
	sort.Strings(out)
	return out
}

// stateDiff compares node's store with the server and returns the
// differences, one a line; "" when they are equal.
func stateDiff(t *testing.T, c *cluster.Client, a *cluster.Agent, node string) string {
	t.Helper()
	view := serverView(t, c, node)
	resources := map[string]bool{}
	for _, res := range nodeResources {
		resources[res] = true
	}
	for ref := range view {
		res, _, _ := strings.Cut(ref, "/")
		resources[res] = true
	}
	local, err := nodeStore(t, a, resources)
	if err != nil {
		return "read the node's store: " + err.Error()
	}
	var diffs []string
	for ref, obj := range view {
		if got, ok := local[ref]; !ok {
			diffs = append(diffs, "node lacks "+ref)
		} else if !reflect.DeepEqual(got, obj) {
			diffs = append(diffs, "node holds another "+ref)
		}
	}
	for ref := range local {
		if _, ok := view[ref]; !ok {
			diffs = append(diffs, "node holds "+ref+", the server does not")
		}
	}
	var viewPods []string
	for ref := range view {
		if strings.HasPrefix(ref, "pods/") {
			viewPods = append(viewPods, ref)
		}
	}
	sort.Strings(viewPods)
	if api := apiPods(t, c, node); !reflect.DeepEqual(api, viewPods) && !(len(api) == 0 && len(viewPods) == 0) {
		diffs = append(diffs, fmt.Sprintf("the API lists pods %v on the node, its view %v", api, viewPods))
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "\n")
}
