//go:build kubectl

package apiserver

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/api"
)

const gadgetV1 = `apiVersion: example.bramble.dev/v1
kind: Gadget
metadata:
  name: g1
spec:
  size: 3
`

// TestKubectlKindAddedAtRunTime adds a kind to the registry while the
// server runs (an unstructured row, as a CustomResourceDefinition will)
// and drives it with real kubectl binaries: discovery, apply, get, watch,
// delete, all without a restart and after kubectl cached the old discovery.
func TestKubectlKindAddedAtRunTime(t *testing.T) {
	for _, bin := range []string{"kubectl", "/usr/lib/google-cloud-sdk/bin/kubectl.1.27", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"} {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			if _, err := exec.LookPath(bin); err != nil {
				t.Fatalf("%s is required for this test: %v", bin, err)
			}
			k := newKubectlEnv(t)
			k.bin = bin
			wantContains(t, k.ok(t, "", "api-resources"), "deployments") // kubectl now caches discovery
			res := api.NewUnstructured(api.Resource{Group: "example.bramble.dev", Version: "v1", Name: "gadgets",
				Singular: "gadget", Kind: "Gadget", Namespaced: true, ShortNames: []string{"gd"},
				Categories: []string{"all"}, Subresources: []string{"status"}})
			if err := k.api.Registry().Kinds().Add(res); err != nil {
				t.Fatalf("add kind: %v", err)
			}
			wantContains(t, k.ok(t, "", "api-resources", "--api-group=example.bramble.dev"), "gadgets", "gd", "example.bramble.dev/v1", "Gadget")
			wantContains(t, k.ok(t, gadgetV1, "apply", "-f", "-"), "gadget.example.bramble.dev/g1 created")
			wantContains(t, k.ok(t, "", "get", "gd"), "g1")
			out := k.ok(t, "", "get", "gadget", "g1", "-o", "jsonpath={.spec.size} {.metadata.generation}")
			if out != "3 1" {
				t.Fatalf("got %q, want size 3 at generation 1", out)
			}
			watch := k.start(t, "get", "gadgets", "--watch-only", "--output-watch-events")
			time.Sleep(time.Second) // let the watch start before the change
			wantContains(t, k.ok(t, strings.Replace(gadgetV1, "size: 3", "size: 4", 1), "apply", "-f", "-"), "configured")
			wantContains(t, watch.waitFor(t, "MODIFIED"), "g1")
			out = k.ok(t, "", "get", "gadget", "g1", "-o", "jsonpath={.spec.size} {.metadata.generation}")
			if out != "4 2" {
				t.Fatalf("got %q, want size 4 at generation 2", out)
			}
			wantContains(t, k.ok(t, "", "delete", "gadget", "g1"), `"g1" deleted`)
			wantContains(t, k.ok(t, "", "get", "gadgets"), "No resources found")
		})
	}
}

// background is a kubectl command left running, with its output collected.
type background struct {
	cmd *exec.Cmd
	out *lockedBuffer
}

func (k *kubectlEnv) start(t *testing.T, args ...string) *background {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := exec.CommandContext(ctx, k.binary(), args...)
	cmd.Env = append(os.Environ(), "HOME="+k.home, "KUBECONFIG="+k.kubeconfig)
	b := &background{cmd: cmd, out: &lockedBuffer{}}
	cmd.Stdout, cmd.Stderr = b.out, b.out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start kubectl %v: %v", args, err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	return b
}

// waitFor waits up to 20 s for the output to contain want and returns it.
func (b *background) waitFor(t *testing.T, want string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		out := b.out.String()
		if strings.Contains(out, want) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("background kubectl printed no %q within 20s:\n%s", want, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
