package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestKubectlVersions runs the same everyday commands with every kubectl our
// users have (1.27-1.33): older ones send JSON where 1.32 sends protobuf,
// newer ones ask for aggregated discovery.
func TestKubectlVersions(t *testing.T) {
	s := cluster.StartServer(t)
	for minor := 27; minor <= 33; minor++ {
		bin := fmt.Sprintf("/usr/lib/google-cloud-sdk/bin/kubectl.1.%d", minor)
		t.Run(fmt.Sprintf("1.%d", minor), func(t *testing.T) {
			if _, err := os.Stat(bin); err != nil {
				t.Fatalf("kubectl 1.%d missing: %v", minor, err)
			}
			run := func(stdin string, args ...string) string {
				t.Helper()
				out, errOut, err := s.KubectlWith(bin, s.Kubeconfig, stdin, args...)
				if err != nil {
					t.Fatalf("kubectl 1.%d %s: %v\n%s%s", minor, strings.Join(args, " "), err, out, errOut)
				}
				return out
			}
			ns := fmt.Sprintf("v1-%d", minor)
			run("", "create", "namespace", ns)
			run("", "create", "configmap", "c", "-n", ns, "--from-literal=k=v")
			manifest := fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: %s\nspec:\n  selector:\n    matchLabels: {app: d}\n  template:\n    metadata:\n      labels: {app: d}\n    spec:\n      containers:\n      - name: c\n        image: busybox:1.36\n", ns)
			if out := run(manifest, "apply", "-f", "-"); !strings.Contains(out, "created") {
				t.Errorf("apply: %s", out)
			}
			if out := run(strings.Replace(manifest, "busybox:1.36", "busybox:1.37", 1), "apply", "-f", "-"); !strings.Contains(out, "configured") {
				t.Errorf("re-apply: %s", out)
			}
			if out := run("", "get", "deploy", "-n", ns); !strings.Contains(out, "UP-TO-DATE") {
				t.Errorf("get deploy has no server-side columns:\n%s", out)
			}
			run("", "label", "cm", "c", "-n", ns, "x=y")
			run("", "delete", "namespace", ns)
		})
	}
}
