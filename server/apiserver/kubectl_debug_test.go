//go:build kubectl

package apiserver

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestKubectlDebugFailsCleanly: the ephemeralcontainers subresource is not
// served yet, and kubectl debug says so instead of panicking on a 404
// Status without details.
func TestKubectlDebugFailsCleanly(t *testing.T) {
	eachKubectl(t, func(t *testing.T, k *kubectlEnv) {
		createBoundPod(t, k.testEnv, "x", "node-1")
		out, err := k.run(t, "", "debug", "pod/x", "-it", "--image=busybox")
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("got %v, want exit status 1; output:\n%s", err, out)
		}
		for _, bad := range []string{"panic", "goroutine"} {
			if containsFold(out, bad) {
				t.Fatalf("kubectl debug output has %q:\n%s", bad, out)
			}
		}
		wantContains(t, out, "ephemeral containers are disabled for this cluster")
	})
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
