// Package version holds the build's version, stamped at link time with
// -ldflags "-X github.com/bramble-edge/bramble/version.Version=v0.1.0".
package version

// Version of bramble itself.
var Version = "v0.0.0-dev"

// Kubernetes API version bramble serves. kubectl's dispatcher picks its
// kubectl binary by KubeMinor, so it must stay "32" while we target 1.32.
const (
	KubeMajor      = "1"
	KubeMinor      = "32"
	KubeGitVersion = "v1.32.0"
)
