//go:build kubectl

package apiserver

import (
	"strings"
	"testing"
)

// TestKubectlDebugAddsEphemeralContainer: kubectl debug patches
// pods/ephemeralcontainers; the container is stored with upstream's
// defaults, and a refusal names the field.
func TestKubectlDebugAddsEphemeralContainer(t *testing.T) {
	eachKubectl(t, func(t *testing.T, k *kubectlEnv) {
		createBoundPod(t, k.testEnv, "x", "node-1")
		wantContains(t, k.ok(t, "", "get", "--raw", "/api/v1"), `"name":"pods/ephemeralcontainers"`)
		k.ok(t, "", "debug", "pod/x", "--image=busybox:1", "-c", "dbg", "--target=main", "--", "sleep", "1")
		got := k.ok(t, "", "get", "pod", "x", "-o", "jsonpath={.spec.ephemeralContainers[0].name} "+
			"{.spec.ephemeralContainers[0].targetContainerName} {.spec.ephemeralContainers[0].imagePullPolicy} "+
			"{.spec.ephemeralContainers[0].terminationMessagePath}")
		if got != "dbg main IfNotPresent /dev/termination-log" {
			t.Fatalf("got %q, want dbg main IfNotPresent /dev/termination-log", got)
		}
		out, err := k.run(t, "", "debug", "pod/x", "--image=busybox:1", "-c", "main")
		if err == nil {
			t.Fatalf("debug with a container name taken: no error; output:\n%s", out)
		}
		wantContains(t, out, `spec.ephemeralContainers[1].name: Duplicate value: "main"`)
		for _, bad := range []string{"panic", "goroutine"} {
			if strings.Contains(strings.ToLower(out), bad) {
				t.Fatalf("kubectl debug output has %q:\n%s", bad, out)
			}
		}
	})
}
