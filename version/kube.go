package version

import "strings"

// KubeletVersion is what a bramble node reports as
// status.nodeInfo.kubeletVersion, and so what `kubectl get nodes` prints
// under VERSION: the Kubernetes version served, with bramble's own version
// as semver build metadata, like k3s's "v1.32.4+k3s1". Tools that parse a
// node's version (helm's kubeVersion checks, dashboards, upgrade
// controllers) read the Kubernetes part; the rest says which bramble.
func KubeletVersion() string {
	return KubeGitVersion + "+bramble." + buildMetadata(Version)
}

// buildMetadata turns bramble's version ("v0.1.0", "v0.0.0-dev+5f0ac9f.dirty")
// into dot-separated semver build identifiers: the leading "v" dropped,
// "+" made a dot, and every character semver does not allow there
// ([0-9A-Za-z-]) replaced by "-".
func buildMetadata(v string) string {
	v = strings.TrimPrefix(v, "v")
	var b strings.Builder
	for _, r := range v {
		switch {
		case r == '+' || r == '.':
			b.WriteByte('.')
		case r == '-', r >= '0' && r <= '9', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	out := strings.Trim(strings.ReplaceAll(b.String(), "..", ".-."), ".")
	if out == "" {
		return "unknown"
	}
	return out
}
