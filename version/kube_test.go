package version

import (
	"regexp"
	"testing"
)

// semverBuild is a Kubernetes version with semver build metadata, as
// `kubectl get nodes` shows k3s's "v1.32.4+k3s1".
var semverBuild = regexp.MustCompile(`^v1\.\d+\.\d+\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$`)

func TestKubeletVersion(t *testing.T) {
	for _, tc := range []struct{ version, want string }{
		{"v0.1.0", "v1.32.0+bramble.0.1.0"},
		{"v0.0.0-dev", "v1.32.0+bramble.0.0.0-dev"},
		{"v0.0.0-dev+5f0ac9f.dirty", "v1.32.0+bramble.0.0.0-dev.5f0ac9f.dirty"},
		{"5f0ac9f", "v1.32.0+bramble.5f0ac9f"},
		{"v1/2 x", "v1.32.0+bramble.1-2-x"},
		{"v", "v1.32.0+bramble.unknown"},
		{"v1..2", "v1.32.0+bramble.1.-.2"},
	} {
		old := Version
		Version = tc.version
		got := KubeletVersion()
		Version = old
		if got != tc.want {
			t.Errorf("Version %q: got %q, want %q", tc.version, got, tc.want)
		}
		if !semverBuild.MatchString(got) {
			t.Errorf("Version %q: %q is not a Kubernetes version with semver build metadata", tc.version, got)
		}
	}
}
