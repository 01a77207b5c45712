//go:build kubectl

package apiserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kubectlCreates are the `kubectl create` generators issue 13 names,
// each with what kubectl prints on success.
var kubectlCreates = []struct {
	args []string
	want string
}{
	{[]string{"create", "service", "clusterip", "s1", "--tcp=80:8080"}, "service/s1 created"},
	{[]string{"create", "serviceaccount", "sa1"}, "serviceaccount/sa1 created"},
	{[]string{"create", "role", "r1", "--verb=get,list", "--resource=pods"}, "role.rbac.authorization.k8s.io/r1 created"},
	{[]string{"create", "rolebinding", "rb1", "--role=r1", "--user=alice"}, "rolebinding.rbac.authorization.k8s.io/rb1 created"},
	{[]string{"create", "clusterrole", "cr1", "--verb=get", "--resource=nodes"}, "clusterrole.rbac.authorization.k8s.io/cr1 created"},
	{[]string{"create", "cronjob", "cj1", "--image=busybox", "--schedule=*/5 * * * *"}, "cronjob.batch/cj1 created"},
	{[]string{"create", "pdb", "pdb1", "--selector=app=web", "--min-available=1"}, "poddisruptionbudget.policy/pdb1 created"},
	{[]string{"create", "quota", "q1", "--hard=pods=10,configmaps=20"}, "resourcequota/q1 created"},
	{[]string{"create", "ingress", "ing1", "--rule=example.com/api*=s1:80"}, "ingress.networking.k8s.io/ing1 created"},
	{[]string{"create", "priorityclass", "pc1", "--value=1000", "--description=test"}, "priorityclass.scheduling.k8s.io/pc1 created"},
}

var kubectlVersions = []string{"kubectl", "/usr/lib/google-cloud-sdk/bin/kubectl.1.27", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"}

// TestKubectlCreateGenerators runs each generator with kubectl 1.27,
// 1.32 and 1.33, each against a fresh server; every one must succeed
// (all are attempted, so one run names every kind that fails).
func TestKubectlCreateGenerators(t *testing.T) {
	for _, bin := range kubectlVersions {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			k := newKubectlEnv(t)
			k.bin = bin
			for _, c := range kubectlCreates {
				out, err := k.run(t, "", c.args...)
				if err != nil || !strings.Contains(out, c.want) {
					t.Errorf("kubectl %s: %v\n%s", strings.Join(c.args, " "), err, out)
				}
			}
		})
	}
}

const pruneSet = `apiVersion: v1
kind: ConfigMap
metadata: {name: NAME, labels: {set: prune-test}}
data: {a: "1"}
`

// TestKubectlApplyPrune: `kubectl apply --prune -l` with default flags
// (kubectl's built-in allow-list of kinds to prune) deletes the labelled
// object that left the folder and keeps the rest.
func TestKubectlApplyPrune(t *testing.T) {
	for _, bin := range kubectlVersions {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			k := newKubectlEnv(t)
			k.bin = bin
			dir := t.TempDir()
			for _, n := range []string{"a", "b"} {
				body := strings.Replace(pruneSet, "NAME", n, 1)
				if err := os.WriteFile(filepath.Join(dir, n+".yaml"), []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			wantContains(t, k.ok(t, "", "apply", "--prune", "-l", "set=prune-test", "-f", dir), "configmap/a created", "configmap/b created")
			k.ok(t, "", "create", "configmap", "other", "--from-literal=x=y") // unlabelled: never pruned
			if err := os.Remove(filepath.Join(dir, "b.yaml")); err != nil {
				t.Fatal(err)
			}
			wantContains(t, k.ok(t, "", "apply", "--prune", "-l", "set=prune-test", "-f", dir), "configmap/a unchanged", "configmap/b pruned")
			out := k.ok(t, "", "get", "cm", "-o", "name")
			if !strings.Contains(out, "configmap/a") || strings.Contains(out, "configmap/b") || !strings.Contains(out, "configmap/other") {
				t.Fatalf("after prune got %q, want a and other, not b", out)
			}
		})
	}
}
