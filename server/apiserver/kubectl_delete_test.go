//go:build kubectl

package apiserver

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

const applyRS = `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: NAME}
spec:
  replicas: 0
  selector: {matchLabels: {app: NAME}}
  template:
    metadata: {labels: {app: NAME}}
    spec: {containers: [{name: c, image: busybox}]}
`

// kubectl's --cascade flag maps onto propagation finalizers; without a
// garbage collector here, the test removes them as the collector would.
func TestKubectlDeleteCascade(t *testing.T) {
	k := newKubectlEnv(t)
	rs := func(name string) string { return strings.ReplaceAll(applyRS, "NAME", name) }
	finalizers := func(name string) string {
		return k.ok(t, "", "get", "rs", name, "-o", "jsonpath={.metadata.finalizers}")
	}
	k.ok(t, rs("bg"), "apply", "-f", "-")
	wantContains(t, k.ok(t, "", "delete", "rs", "bg", "--cascade=background"), `replicaset.apps "bg" deleted`)
	k.get(rsPath+"/bg").must(t, http.StatusNotFound)

	k.ok(t, rs("or"), "apply", "-f", "-")
	k.ok(t, "", "delete", "rs", "or", "--cascade=orphan", "--wait=false")
	wantContains(t, finalizers("or"), `"orphan"`)
	k.ok(t, "", "delete", "rs", "or", "--cascade=foreground", "--wait=false")
	wantContains(t, finalizers("or"), `"foregroundDeletion"`)
	k.ok(t, "", "delete", "rs", "or") // background: the finalizer goes, and the object
	k.get(rsPath+"/or").must(t, http.StatusNotFound)

	// kubectl waits for a foreground deletion to finish.
	k.ok(t, rs("fg"), "apply", "-f", "-")
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := k.run(t, "", "delete", "rs", "fg", "--cascade=foreground", "--timeout=30s")
		done <- result{out, err}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(string(k.get(rsPath+"/fg").body), "foregroundDeletion") {
		if time.Now().After(deadline) {
			t.Fatal("rs fg never got the foregroundDeletion finalizer")
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case r := <-done:
		t.Fatalf("kubectl returned before the finalizer went: %v\n%s", r.err, r.out)
	case <-time.After(300 * time.Millisecond):
	}
	k.patch(rsPath+"/fg", mediaMergePatch, `{"metadata":{"finalizers":null}}`).must(t, http.StatusOK)
	r := <-done
	if r.err != nil {
		t.Fatalf("kubectl delete --cascade=foreground: %v\n%s", r.err, r.out)
	}
	wantContains(t, r.out, `replicaset.apps "fg" deleted`)
}
