// Package helm drives the real Helm (3, and 4 when it builds) against a
// real bramble server: the `helm create` chart's life cycle, --wait on a
// real node, helm test, lookup, .Capabilities, and the chart corpus of
// ../shared/charts, whose outcome is written to docs/COMPATIBILITY.md.
// The tests build Helm from the Go module proxy into a cache folder the
// first time (hack/deps.sh does it ahead of CI); they run with
//
//	go test -tags helm ./e2e/helm/
package helm
