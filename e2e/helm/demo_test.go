//go:build helm

package helm

import (
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// versions are the Helm majors every life-cycle test runs with.
var versions = []string{Helm3, Helm4}

// TestHelmCreateChart takes the chart `helm create` writes through its
// life: install, upgrade, history, rollback, uninstall; then renders it
// with `helm template` and applies that with kubectl.
func TestHelmCreateChart(t *testing.T) {
	s := cluster.StartServer(t)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t, s, v)
			e.ok("create", "demo")
			ns := "demo-" + strings.ReplaceAll(v, ".", "-")
			wantContains(t, e.ok("install", "demo", "./demo", "-n", ns, "--create-namespace"), "STATUS: deployed", "REVISION: 1")
			wantContains(t, e.kubectl("", "get", "deploy,svc,sa", "-n", ns, "-o", "name"),
				"deployment.apps/demo", "service/demo", "serviceaccount/demo")
			wantContains(t, e.ok("upgrade", "demo", "./demo", "-n", ns, "--set", "replicaCount=2"), "REVISION: 2")
			wantReplicas(t, e, ns, "2")
			wantContains(t, e.ok("history", "demo", "-n", ns), "Install complete", "Upgrade complete")
			wantContains(t, e.ok("rollback", "demo", "1", "-n", ns), "Rollback was a success")
			wantReplicas(t, e, ns, "1")
			wantContains(t, e.ok("history", "demo", "-n", ns), "Rollback to 1")
			wantContains(t, e.ok("list", "-n", ns), "demo", "deployed")
			wantContains(t, e.ok("uninstall", "demo", "-n", ns), `release "demo" uninstalled`)
			cluster.WaitFor(t, 30e9, func() bool {
				out := e.kubectl("", "get", "deploy,svc,sa,secrets", "-n", ns, "-o", "name")
				return !strings.Contains(out, "demo")
			}, "the release's objects and its Secrets to go")

			tpl := ns + "-template"
			e.kubectl("", "create", "namespace", tpl)
			rendered := e.ok("template", "demo", "./demo", "-n", tpl)
			wantContains(t, e.kubectl(rendered, "apply", "-n", tpl, "-f", "-"),
				"deployment.apps/demo created", "service/demo created", "serviceaccount/demo created")
			wantContains(t, e.kubectl(rendered, "apply", "-n", tpl, "-f", "-"), "deployment.apps/demo unchanged")
		})
	}
}

func wantReplicas(t *testing.T, e *env, ns, want string) {
	t.Helper()
	if got := e.kubectl("", "get", "deploy", "demo", "-n", ns, "-o", "jsonpath={.spec.replicas}"); got != want {
		t.Fatalf("deployment demo has %s replicas, want %s", got, want)
	}
}
