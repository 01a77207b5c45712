//go:build kubectl

package apiserver

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/bramble-edge/bramble/server/admission"
)

const limitRangeYAML = `apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: kube-public}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 128Mi}
    defaultRequest: {cpu: 100m}
`

// newPolicyEnv is a kubectl environment with the policy admission
// plugins installed, as the server installs them.
func newPolicyEnv(t *testing.T, bin string) *kubectlEnv {
	t.Helper()
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("%s is required for this test: %v", bin, err)
	}
	k := newKubectlEnv(t)
	k.bin = bin
	if err := admission.InstallPolicy(context.Background(), k.api.Registry()); err != nil {
		t.Fatalf("install policy admission: %v", err)
	}
	return k
}

// TestKubectlQuota: with pods: 2, kubectl's third pod is refused with
// upstream's message.
func TestKubectlQuota(t *testing.T) {
	for _, bin := range []string{"kubectl", "/usr/lib/google-cloud-sdk/bin/kubectl.1.27"} {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			k := newPolicyEnv(t, bin)
			wantContains(t, k.ok(t, "", "create", "quota", "q", "--hard=pods=2,requests.memory=1Gi"), "resourcequota/q created")
			wantContains(t, k.ok(t, "", "get", "quota"), "NAME", "AGE", "REQUEST", "LIMIT", "q")
			out, err := k.run(t, "", "run", "p0", "--image=busybox")
			if err == nil {
				t.Fatalf("pod without requests.memory admitted:\n%s", out)
			}
			wantContains(t, out, `pods "p0" is forbidden: failed quota: q: must specify requests.memory for: p0`)
			for _, name := range []string{"p1", "p2"} {
				wantContains(t, k.ok(t, "", "run", name, "--image=busybox", "--overrides",
					`{"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"memory":"64Mi"}}}]}}`), "pod/"+name+" created")
			}
			out, err = k.run(t, "", "run", "p3", "--image=busybox", "--overrides",
				`{"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"memory":"64Mi"}}}]}}`)
			if err == nil {
				t.Fatalf("third pod admitted:\n%s", out)
			}
			wantContains(t, out, `Error from server (Forbidden): pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`)
		})
	}
}

// TestKubectlPolicyKinds: kubectl create pdb and priorityclass succeed,
// the tables have upstream's columns, LimitRange defaults land on a pod,
// priorities are resolved and the system classes stay.
func TestKubectlPolicyKinds(t *testing.T) {
	k := newPolicyEnv(t, "kubectl")
	wantContains(t, k.ok(t, "", "api-versions"), "policy/v1", "scheduling.k8s.io/v1", "node.k8s.io/v1")
	wantContains(t, k.ok(t, "", "create", "pdb", "web", "--selector=app=web", "--min-available=1"),
		"poddisruptionbudget.policy/web created")
	wantContains(t, k.ok(t, "", "get", "pdb"), "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "web")
	wantContains(t, k.ok(t, "", "create", "priorityclass", "high", "--value=1000", "--preemption-policy=Never"),
		"priorityclass.scheduling.k8s.io/high created")
	pcs := k.ok(t, "", "get", "pc")
	if !regexp.MustCompile(`NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE`).MatchString(pcs) {
		t.Fatalf("priority class table lacks upstream's columns:\n%s", pcs)
	}
	wantContains(t, pcs, "system-node-critical", "2000001000", "system-cluster-critical", "high")
	out, err := k.run(t, "", "delete", "pc", "system-node-critical")
	if err == nil {
		t.Fatalf("system class deleted:\n%s", out)
	}
	wantContains(t, out, "this is a system priority class and cannot be deleted")
	wantContains(t, k.ok(t, limitRangeYAML, "apply", "-f", "-"), "limitrange/defaults created")
	wantContains(t, k.ok(t, "", "-n", "kube-public", "run", "bare", "--image=busybox",
		"--overrides", `{"spec":{"priorityClassName":"high"}}`), "pod/bare created")
	got := k.ok(t, "", "-n", "kube-public", "get", "pod", "bare", "-o",
		"jsonpath={.spec.containers[0].resources.limits.cpu} {.spec.containers[0].resources.requests.cpu} {.spec.priority} {.spec.preemptionPolicy}")
	if got != "500m 100m 1000 Never" {
		t.Fatalf("got %q, want LimitRange defaults 500m/100m and priority 1000 Never", got)
	}
	out, err = k.run(t, "", "run", "lost", "--image=busybox", "--overrides", `{"spec":{"priorityClassName":"nope"}}`)
	if err == nil {
		t.Fatalf("pod with an unknown class admitted:\n%s", out)
	}
	wantContains(t, out, "no PriorityClass with name nope was found")
	wantContains(t, k.ok(t, "", "get", "limits", "-A"), "CREATED AT", "defaults")
	wantContains(t, k.ok(t, "", "explain", "pdb.spec.minAvailable"), "An eviction is allowed if at least")
	wantContains(t, k.ok(t, "", "explain", "priorityclass.value"), "value represents the integer value of this priority class")
}
