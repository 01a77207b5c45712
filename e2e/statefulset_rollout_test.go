package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/bench/hollow/hollownode"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

// rolloutKubectls are the oldest and newest kubectl users run; their
// rollout commands read ControllerRevisions in their own ways.
var rolloutKubectls = []string{"/usr/lib/google-cloud-sdk/bin/kubectl.1.27", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"}

func rolloutSet(kind, name, tag string) string {
	extra := "  serviceName: " + name + "\n  replicas: 3\n"
	if kind == "DaemonSet" {
		extra = ""
	}
	return fmt.Sprintf(`apiVersion: apps/v1
kind: %[1]s
metadata: {name: %[2]s, namespace: default}
spec:
%[4]s  selector: {matchLabels: {app: %[2]s}}
  template:
    metadata: {labels: {app: %[2]s}}
    spec:
      containers: [{name: app, image: "registry.lan/app:%[3]s"}]
`, kind, name, tag, extra)
}

// TestStatefulSetAndDaemonSetRolloutWithKubectl drives `kubectl rollout
// status|history|undo|restart` and `kubectl scale` on a StatefulSet and a
// DaemonSet of hollow pods with kubectl 1.27 and 1.33.
func TestStatefulSetAndDaemonSetRolloutWithKubectl(t *testing.T) {
	s := cluster.StartServer(t)
	startFleet(t, s, cluster.JoinToken(t, s), hollownode.Config{Prefix: "pi", Nodes: 2, Arch: "arm64"})
	waitNodes(t, s, 2)
	for _, bin := range rolloutKubectls {
		v := strings.ReplaceAll(strings.TrimPrefix(filepath.Base(bin), "kubectl."), ".", "")
		t.Run(filepath.Base(bin), func(t *testing.T) {
			k := func(args ...string) string {
				t.Helper()
				out, errOut, err := s.KubectlWith(bin, s.Kubeconfig, "", args...)
				if err != nil {
					t.Fatalf("%s %s: %v\n%s%s\nserver:\n%s", filepath.Base(bin), strings.Join(args, " "), err, out, errOut, tail(s.Logs(), 30))
				}
				return out
			}
			rollout(t, s, k, "statefulset", "db"+v, 3)
			rollout(t, s, k, "daemonset", "agent"+v, 2)
			want := "db" + v + "-0 "
			k("scale", "statefulset/db"+v, "--replicas=1")
			cluster.WaitFor(t, 60*time.Second, func() bool {
				pods := listPods(s, "app=db"+v)
				return len(pods) == 1 && pods[0].Name+" " == want && readyCount(pods) == 1
			}, "the StatefulSet scaled to its pod 0")
		})
	}
}

// rollout applies a set at v1, updates it to v2, checks the history, undoes
// back to v1 and restarts it, waiting with `kubectl rollout status` each time.
func rollout(t *testing.T, s *cluster.Server, k func(...string) string, kind, name string, pods int) {
	t.Helper()
	kindName := map[string]string{"statefulset": "StatefulSet", "daemonset": "DaemonSet"}[kind]
	if _, stderr, err := s.Apply(rolloutSet(kindName, name, "v1")); err != nil {
		t.Fatalf("apply %s %s: %v: %s", kind, name, err, stderr)
	}
	ref := kind + "/" + name
	done := map[string]string{"statefulset": "roll out complete", "daemonset": "successfully rolled out"}[kind]
	status := func() string { t.Helper(); return k("rollout", "status", ref, "--timeout=90s") }
	wantIn(t, status(), done)
	waitPods(t, s, "app="+name, pods, "v1")
	k("set", "image", ref, "app=registry.lan/app:v2")
	wantIn(t, status(), done)
	waitPods(t, s, "app="+name, pods, "v2")
	wantIn(t, k("rollout", "history", ref), "REVISION", "1 ", "2 ")
	wantIn(t, k("rollout", "history", ref, "--revision=1"), "registry.lan/app:v1")
	wantIn(t, k("rollout", "undo", ref), "rolled back")
	wantIn(t, status(), done)
	waitPods(t, s, "app="+name, pods, "v1")
	wantIn(t, k("rollout", "history", ref), "2 ", "3 ")
	wantIn(t, k("rollout", "undo", ref, "--to-revision=3"), "skipped rollback")
	wantIn(t, k("rollout", "restart", ref), "restarted")
	wantIn(t, status(), done)
	cluster.WaitFor(t, 60*time.Second, func() bool {
		list := listPods(s, "app="+name)
		n := 0
		for _, p := range list {
			if p.Annotations["kubectl.kubernetes.io/restartedAt"] != "" && podReady(&p) {
				n++
			}
		}
		return n == pods && len(list) == pods
	}, fmt.Sprintf("%d restarted Ready pods of %s", pods, ref))
}

func wantIn(t *testing.T, out string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(out, sub) {
			t.Fatalf("output lacks %q:\n%s", sub, out)
		}
	}
}
