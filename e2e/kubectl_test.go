package e2e

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestKubectlBasics covers what a user first types: health, version,
// discovery, and the typed create commands (protobuf bodies in 1.32).
func TestKubectlBasics(t *testing.T) {
	s := cluster.StartServer(t)
	if out := s.MustKubectl("get", "--raw", "/readyz"); strings.TrimSpace(out) != "ok" {
		t.Errorf("get --raw /readyz: got %q, want ok", out)
	}
	if out := s.MustKubectl("version"); !strings.Contains(out, "Server Version: v1.32") {
		t.Errorf("kubectl version: got %q, want a v1.32 server version", out)
	}
	out := s.MustKubectl("api-resources")
	for _, want := range []string{"pods", "po", "deployments", "deploy", "configmaps", "cm", "daemonsets", "jobs", "leases", "events", "namespaces", "nodes", "secrets", "replicasets"} {
		if !regexp.MustCompile(`(?m)\b` + want + `\b`).MatchString(out) {
			t.Errorf("api-resources lacks %q:\n%s", want, out)
		}
	}
	if out := s.MustKubectl("create", "namespace", "team-a"); !strings.Contains(out, "namespace/team-a created") {
		t.Errorf("create namespace: got %q", out)
	}
	if out := s.MustKubectl("create", "configmap", "settings", "-n", "team-a", "--from-literal=color=blue", "--from-literal=size=9"); !strings.Contains(out, "configmap/settings created") {
		t.Errorf("create configmap: got %q", out)
	}
	out = s.MustKubectl("get", "configmap", "settings", "-n", "team-a", "-o", "jsonpath={.data.color}/{.data.size}")
	if out != "blue/9" {
		t.Errorf("configmap data: got %q, want blue/9", out)
	}
	out = s.MustKubectl("get", "namespaces")
	for _, ns := range []string{"default", "kube-system", "team-a"} {
		if !regexp.MustCompile(`(?m)^` + ns + `\s+Active\s`).MatchString(out) {
			t.Errorf("get namespaces lacks an Active %s row:\n%s", ns, out)
		}
	}
}

// TestKubectlApplyStack applies one multi-document file, re-applies a change,
// applies server-side, and reads it all back the ways users do.
func TestKubectlApplyStack(t *testing.T) {
	s := cluster.StartServer(t)
	stack, err := os.ReadFile("testdata/stack.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, err := s.Apply(string(stack))
	if err != nil {
		t.Fatalf("apply: %v\n%s%s", err, out, errOut)
	}
	for _, want := range []string{"namespace/shop created", "configmap/web-config created", "secret/web-secret created",
		"deployment.apps/web created", "daemonset.apps/node-agent created", "job.batch/migrate created"} {
		if !strings.Contains(out, want) {
			t.Errorf("apply output lacks %q:\n%s", want, out)
		}
	}
	if errOut != "" {
		t.Errorf("apply printed to stderr: %s", errOut)
	}

	changed := strings.Replace(string(stack), "mode: one", "mode: two", 1)
	changed = strings.Replace(changed, "replicas: 2", "replicas: 3", 1)
	out, errOut, err = s.Apply(changed)
	if err != nil {
		t.Fatalf("re-apply: %v\n%s%s", err, out, errOut)
	}
	// The Secret reads "configured" again, as with a real apiserver: its
	// stringData is folded into data, so the 3-way diff always sees it added.
	for _, want := range []string{"configmap/web-config configured", "deployment.apps/web configured",
		"namespace/shop unchanged", "daemonset.apps/node-agent unchanged", "job.batch/migrate unchanged"} {
		if !strings.Contains(out, want) {
			t.Errorf("re-apply output lacks %q:\n%s", want, out)
		}
	}
	if got := s.MustKubectl("get", "cm", "web-config", "-n", "shop", "-o", "jsonpath={.data.mode}"); got != "two" {
		t.Errorf("after re-apply mode = %q, want two", got)
	}
	if got := s.MustKubectl("get", "deploy", "web", "-n", "shop", "-o", "jsonpath={.spec.replicas} {.metadata.generation}"); got != "3 2" {
		t.Errorf("after re-apply replicas/generation = %q, want \"3 2\"", got)
	}

	ssa := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa-config\n  namespace: shop\ndata:\n  a: \"1\"\n  b: \"2\"\n"
	if out, errOut, err := s.Apply(ssa, "--server-side"); err != nil || !strings.Contains(out, "serverside-applied") {
		t.Fatalf("apply --server-side: %v\n%s%s", err, out, errOut)
	}
	ssa2 := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa-config\n  namespace: shop\ndata:\n  a: \"1\"\n"
	if out, errOut, err := s.Apply(ssa2, "--server-side"); err != nil {
		t.Fatalf("second apply --server-side: %v\n%s%s", err, out, errOut)
	}
	if got := s.MustKubectl("get", "cm", "ssa-config", "-n", "shop", "-o", "jsonpath={.data}"); got != `{"a":"1"}` {
		t.Errorf("server-side apply dropping b: data = %s, want {\"a\":\"1\"}", got)
	}

	all := s.MustKubectl("get", "all", "-A")
	for _, want := range []string{`(?m)^NAMESPACE\s+NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE`, `shop\s+deployment.apps/web\s+0/3`,
		`(?m)^NAMESPACE\s+NAME\s+DESIRED\s+CURRENT\s+READY`, `shop\s+daemonset.apps/node-agent\s+0\s+0\s+0`,
		`(?m)^NAMESPACE\s+NAME\s+STATUS\s+COMPLETIONS`, `shop\s+job.batch/migrate\s+`} {
		if !regexp.MustCompile(want).MatchString(all) {
			t.Errorf("get all -A does not match %s:\n%s", want, all)
		}
	}

	var doc map[string]any
	if err := json.Unmarshal([]byte(s.MustKubectl("get", "deploy", "web", "-n", "shop", "-o", "json")), &doc); err != nil {
		t.Fatalf("get -o json: %v", err)
	}
	if cluster.Field(doc, "kind") != "Deployment" || cluster.Field(doc, "metadata", "uid") == nil || cluster.Field(doc, "spec", "strategy", "type") != "RollingUpdate" {
		t.Errorf("get -o json: kind/uid/defaulted strategy missing: %v", doc)
	}
	y := s.MustKubectl("get", "secret", "web-secret", "-n", "shop", "-o", "yaml")
	if !strings.Contains(y, "password: czNjcmV0") || !strings.Contains(y, "type: Opaque") {
		t.Errorf("get secret -o yaml: stringData not folded into data:\n%s", y)
	}
}

// TestKubectlSelectorsWatchAndEdits: -l, -w, label, annotate, scale,
// describe and delete.
func TestKubectlSelectorsWatchAndEdits(t *testing.T) {
	s := cluster.StartServer(t)
	for _, args := range [][]string{
		{"create", "configmap", "a1", "--from-literal=k=v"},
		{"create", "configmap", "a2", "--from-literal=k=v"},
		{"create", "configmap", "b1", "--from-literal=k=v"},
		{"label", "configmap", "a1", "a2", "app=x"},
		{"label", "configmap", "b1", "app=y"},
	} {
		s.MustKubectl(args...)
	}
	out := s.MustKubectl("get", "configmaps", "-l", "app=x", "-o", "name")
	if got := strings.Fields(out); strings.Join(got, ",") != "configmap/a1,configmap/a2" {
		t.Errorf("get -l app=x: got %v, want a1 and a2 only", got)
	}
	out = s.MustKubectl("get", "configmaps", "-l", "app in (x,y),app!=x", "-o", "name")
	if strings.TrimSpace(out) != "configmap/b1" {
		t.Errorf("set-based selector: got %q, want configmap/b1", out)
	}
	if out := s.MustKubectl("get", "cm", "-l", "app=nothing"); out != "" {
		t.Errorf("empty selection printed %q on stdout", out)
	}

	watch := cluster.StartKubectl(t, s, "get", "configmaps", "-w", "--output-watch-events")
	cluster.WaitFor(t, 20*time.Second, func() bool { return strings.Contains(watch.Out(), "a2") }, "watch to list a2")
	s.MustKubectl("annotate", "configmap", "a2", "note=changed")
	s.MustKubectl("create", "configmap", "c1", "--from-literal=k=v")
	cluster.WaitFor(t, 20*time.Second, func() bool {
		o := watch.Out()
		return strings.Contains(o, "MODIFIED") && strings.Contains(o, "c1")
	}, "watch to see the annotation (MODIFIED a2) and the create (ADDED c1)")
	watch.Stop()

	if got := s.MustKubectl("get", "cm", "a2", "-o", "jsonpath={.metadata.annotations.note}"); got != "changed" {
		t.Errorf("annotate: got %q", got)
	}

	dep := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: busybox:1.36\n"
	if out, errOut, err := s.Apply(dep); err != nil {
		t.Fatalf("apply deployment: %v %s %s", err, out, errOut)
	}
	s.MustKubectl("scale", "deployment", "web", "--replicas=4")
	if got := s.MustKubectl("get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"); got != "4" {
		t.Errorf("scale: replicas = %q, want 4", got)
	}
	desc := s.MustKubectl("describe", "deployment", "web")
	for _, want := range []string{"Name:", "web", "Replicas:", "4 desired", "busybox:1.36"} {
		if !strings.Contains(desc, want) {
			t.Errorf("describe deployment lacks %q:\n%s", want, desc)
		}
	}
	desc = s.MustKubectl("describe", "configmap", "a1")
	if !strings.Contains(desc, "app=x") {
		t.Errorf("describe configmap lacks its label:\n%s", desc)
	}

	if out := s.MustKubectl("delete", "configmap", "a1"); !strings.Contains(out, `configmap "a1" deleted`) {
		t.Errorf("delete: got %q", out)
	}
	if _, errOut, err := s.Kubectl("get", "configmap", "a1"); err == nil || !strings.Contains(errOut, `configmaps "a1" not found`) {
		t.Errorf("get after delete: err=%v stderr=%q, want NotFound", err, errOut)
	}
	s.MustKubectl("delete", "deployment", "web")
	s.MustKubectl("create", "namespace", "gone")
	s.MustKubectl("create", "configmap", "inside", "-n", "gone", "--from-literal=k=v")
	s.MustKubectl("delete", "namespace", "gone")
	if _, errOut, err := s.Kubectl("get", "configmap", "inside", "-n", "gone"); err == nil {
		t.Errorf("configmap in deleted namespace still readable: %s", errOut)
	}
}
