//go:build helm

package helm

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// servedKinds is every apiVersion/Kind the server's discovery lists.
func servedKinds(t *testing.T, e *env) map[string]bool {
	t.Helper()
	out := e.kubectl("", "api-resources", "--no-headers")
	served := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 { // NAME [SHORTNAMES] APIVERSION NAMESPACED KIND
			served[f[len(f)-3]+"/"+f[len(f)-1]] = true
		}
	}
	return served
}

// serverMinor is the minor Kubernetes version the server reports.
func serverMinor(t *testing.T, e *env) string {
	t.Helper()
	var v struct{ Minor string }
	if err := json.Unmarshal([]byte(e.kubectl("", "get", "--raw", "/version")), &v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(v.Minor, "+")
}

// renderedKinds lists the distinct apiVersion/Kind of a rendered chart.
func renderedKinds(manifest string) []string {
	seen := map[string]bool{}
	for _, doc := range strings.Split(manifest, "\n---") {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if yaml.Unmarshal([]byte(doc), &head) == nil && head.Kind != "" {
			seen[head.APIVersion+"/"+head.Kind] = true
		}
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

const compatibilityHead = `# Chart compatibility

What ` + "`helm install`" + ` of each chart in ` + "`../shared/charts/`" + ` (real charts as their authors publish
them; see its README) does on bramble. A chart counts as installed when Helm accepted every resource it
renders. Each goes into its own namespace, with its default values and without ` + "`--wait`" + `: the charts'
images are not available offline, so this measures what the API accepts, not whether the apps run.

Written by ` + "`e2e/helm/corpus_test.go`" + ` (` + "`go test -tags helm -run TestChartCorpus ./e2e/helm/`" + `, which CI runs),
with Helm %s against the server of this tree (reporting Kubernetes %s); the test fails when fewer than
95 %% install. "Not served" lists the kinds the chart renders (for that Kubernetes version) that the
server's discovery does not list.

**%d of %d charts install (%.0f %%).**

| chart | installs | renders | not served | what was refused |
| --- | --- | --- | --- | --- |
`

// writeCompatibility writes docs/COMPATIBILITY.md from the results.
func writeCompatibility(t *testing.T, results []chartResult, installed int, kube string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, compatibilityHead, Helm3, kube, installed, len(results), 100*float64(installed)/float64(len(results)))
	for _, r := range results {
		yes := "no"
		if r.Installed {
			yes = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Chart, yes, cell(kindNames(r.Renders)), cell(r.Unserved), cell([]string{r.Refused}))
	}
	path := filepath.Join("..", "..", "docs", "COMPATIBILITY.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
}

// kindNames shortens apiVersion/Kind to Kind.
func kindNames(kinds []string) []string {
	var out []string
	for _, k := range kinds {
		out = append(out, k[strings.LastIndex(k, "/")+1:])
	}
	return out
}

// cell is a table cell: items joined, pipes escaped, "" as a dash.
func cell(items []string) string {
	s := strings.TrimSpace(strings.Join(items, ", "))
	if s == "" {
		return "-"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}
