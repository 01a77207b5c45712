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

// probeTemplate records what the chart saw of the cluster at install time.
const probeTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: probe
data:
  policyV1: {{ .Capabilities.APIVersions.Has "policy/v1" | quote }}
  policyV1PDB: {{ .Capabilities.APIVersions.Has "policy/v1/PodDisruptionBudget" | quote }}
  appsV1Deployment: {{ .Capabilities.APIVersions.Has "apps/v1/Deployment" | quote }}
  rbacV1: {{ .Capabilities.APIVersions.Has "rbac.authorization.k8s.io/v1" | quote }}
  networkingV1Ingress: {{ .Capabilities.APIVersions.Has "networking.k8s.io/v1/Ingress" | quote }}
  bogus: {{ .Capabilities.APIVersions.Has "bogus.example.com/v1" | quote }}
  kubeMinor: {{ .Capabilities.KubeVersion.Minor | quote }}
  seed: {{ (lookup "v1" "ConfigMap" .Release.Namespace "seed").data.value | default "none" | quote }}
  missing: {{ (lookup "v1" "ConfigMap" .Release.Namespace "absent").data | default "none" | quote }}
  hasDefaultNamespace: {{ hasKey (lookup "v1" "Namespace" "" "default") "metadata" | quote }}
`

// TestHelmLookupAndCapabilities: a chart's templates see the cluster as
// it is: lookup reads live objects (one, a missing one, a cluster-scoped
// one), .Capabilities.APIVersions lists what discovery serves (policy/v1
// among them, so charts render policy/v1 PDBs) and nothing else.
func TestHelmLookupAndCapabilities(t *testing.T) {
	s := cluster.StartServer(t)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t, s, v)
			ns := "probe-" + v[:2]
			e.kubectl("", "create", "namespace", ns)
			e.kubectl("", "create", "configmap", "seed", "-n", ns, "--from-literal=value=planted")
			chart := e.writeChart("probe", map[string]string{
				"Chart.yaml":        "apiVersion: v2\nname: probe\nversion: 0.1.0\n",
				"templates/cm.yaml": probeTemplate,
			})
			e.ok("install", "probe", chart, "-n", ns)
			want := map[string]string{"policyV1": "true", "policyV1PDB": "true", "appsV1Deployment": "true",
				"rbacV1": "true", "networkingV1Ingress": "true", "bogus": "false", "seed": "planted",
				"missing": "none", "hasDefaultNamespace": "true"}
			for key, val := range want {
				got := e.kubectl("", "get", "cm", "probe", "-n", ns, "-o", "jsonpath={.data."+key+"}")
				if got != val {
					t.Errorf("%s: the chart saw %q, want %q", key, got, val)
				}
			}
			minor := serverMinor(t, e)
			if got := e.kubectl("", "get", "cm", "probe", "-n", ns, "-o", "jsonpath={.data.kubeMinor}"); got != minor {
				t.Errorf("kubeMinor: the chart saw %q, the server says %q", got, minor)
			}
		})
	}
}
