//go:build helm

package helm

import (
	"encoding/json"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

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
			var version struct{ Minor string }
			if err := json.Unmarshal([]byte(e.kubectl("", "get", "--raw", "/version")), &version); err != nil {
				t.Fatal(err)
			}
			minor := version.Minor
			if got := e.kubectl("", "get", "cm", "probe", "-n", ns, "-o", "jsonpath={.data.kubeMinor}"); got != minor {
				t.Errorf("kubeMinor: the chart saw %q, the server says %q", got, minor)
			}
		})
	}
}
