//go:build helm

package helm

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// minInstalled is the share of the corpus that must install (issue 13).
const minInstalled = 0.95

// chartResult is what one chart of the corpus did.
type chartResult struct {
	Chart     string
	Installed bool
	Renders   []string // apiVersion/Kind of what `helm template` renders for this server's version
	Unserved  []string // of those, what the server's discovery does not list
	Refused   string   // Helm's error, one line
}

// TestChartCorpus installs every chart of ../shared/charts with its
// default values, each in its own namespace and without waiting (the
// images are not available offline: this measures what the API accepts),
// writes the outcome to docs/COMPATIBILITY.md, and then fails when fewer
// than 95 % installed.
func TestChartCorpus(t *testing.T) {
	charts := corpus(t)
	s := cluster.StartServer(t)
	e := newEnv(t, s, Helm3)
	served := servedKinds(t, e)
	kube := "v1." + serverMinor(t, e) + ".0"
	var results []chartResult
	for _, path := range charts {
		results = append(results, installChart(e, path, kube, served))
	}
	installed := 0
	for _, r := range results {
		if r.Installed {
			installed++
		}
	}
	writeCompatibility(t, results, installed, kube)
	share := float64(installed) / float64(len(results))
	t.Logf("%d of %d charts install (%.0f %%); docs/COMPATIBILITY.md written", installed, len(results), 100*share)
	if share < minInstalled {
		t.Fatalf("only %d of %d charts install (%.0f %%), want at least %.0f %%: see docs/COMPATIBILITY.md",
			installed, len(results), 100*share, 100*minInstalled)
	}
}

// corpus lists the chart archives of shared/charts: BRAMBLE_CHARTS when
// set, else the first shared/charts found beside the repository or a
// folder above it (CI lays shared/ beside the clone; worktrees sit deeper).
func corpus(t *testing.T) []string {
	t.Helper()
	dir := os.Getenv("BRAMBLE_CHARTS")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		for up := filepath.Join(wd, "..", "..", ".."); dir == "" && up != filepath.Dir(up); up = filepath.Dir(up) {
			if _, err := os.Stat(filepath.Join(up, "shared", "charts")); err == nil {
				dir = filepath.Join(up, "shared", "charts")
			}
		}
	}
	charts, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if len(charts) == 0 {
		t.Fatalf("no chart corpus: no *.tgz in ../shared/charts beside the repository (or BRAMBLE_CHARTS=%q)", os.Getenv("BRAMBLE_CHARTS"))
	}
	sort.Strings(charts)
	return charts
}

var notDNS = regexp.MustCompile(`[^a-z0-9-]+`)

// installChart installs one archive in a namespace named after it.
func installChart(e *env, path, kube string, served map[string]bool) chartResult {
	name := strings.TrimSuffix(filepath.Base(path), ".tgz")
	ns := dnsLabel(name)
	release := dnsLabel(regexp.MustCompile(`-[0-9][0-9.]*$`).ReplaceAllString(name, ""))
	r := chartResult{Chart: name}
	if out, err := e.run("template", release, path, "-n", ns, "--kube-version", kube); err == nil {
		r.Renders = renderedKinds(out)
		for _, k := range r.Renders {
			if !served[k] {
				r.Unserved = append(r.Unserved, k)
			}
		}
	}
	out, err := e.run("install", release, path, "-n", ns, "--create-namespace", "--timeout", "2m")
	r.Installed = err == nil
	if err != nil {
		r.Refused = helmError(out, err)
	}
	return r
}

func dnsLabel(s string) string {
	return strings.Trim(notDNS.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

var noMatch = regexp.MustCompile(`no matches for kind "([^"]+)" in version "([^"]+)"`)

// helmError is Helm's error on one line: the kinds it found no mapping
// for, when that is the reason, else its message.
func helmError(out string, err error) string {
	if m := noMatch.FindAllStringSubmatch(out, -1); len(m) > 0 {
		seen, kinds := map[string]bool{}, []string{}
		for _, k := range m {
			if k := k[2] + " " + k[1]; !seen[k] {
				seen[k] = true
				kinds = append(kinds, k)
			}
		}
		msg := "no kind " + strings.Join(kinds, ", ")
		if strings.Contains(out, "failed to list CRDs") {
			msg += "; and for others: failed to check CRD: failed to list CRDs"
		}
		return msg
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "Error:") || (len(lines) > 0 && l != "") {
			lines = append(lines, l)
		}
	}
	msg := strings.Join(lines, " ")
	if msg == "" {
		msg = fmt.Sprintf("%v: %s", err, strings.TrimSpace(out))
	}
	if len(msg) > 400 {
		msg = msg[:400] + "..."
	}
	return msg
}
