package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// agentOnly is the agent-only build, made on first use: most tests never
// run it.
var agentOnly = sync.OnceValues(buildAgentOnly)

// AgentOnlyBin builds the agent-only bramble (-tags agentonly, as
// hack/release.sh builds bramble-agent-ARCH) once per test binary, beside a
// copy of bramble-log, and returns its path. Build must have run; the race
// flag is Build's.
func AgentOnlyBin(t testing.TB) string {
	t.Helper()
	bin, err := agentOnly()
	if err != nil {
		t.Fatalf("agent-only build: %v", err)
	}
	return bin
}

func buildAgentOnly() (string, error) {
	if Bin == "" {
		return "", fmt.Errorf("cluster.Build has not run")
	}
	dir := filepath.Join(filepath.Dir(Bin), "agent-only")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "bramble")
	args := []string{"build", "-tags=agentonly,no_dynamic_plugins,netgo,osusergo", "-o", bin}
	if built.race {
		args = append(args, "-race")
	} else {
		args = append(args, "-trimpath", "-ldflags=-s -w")
	}
	build := exec.Command("go", append(args, "./cmd/bramble")...)
	build.Dir = built.root
	// Without cgo, as released; the race detector needs cgo (for its
	// runtime, not for any of bramble's packages).
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if built.race {
		build.Env = append(os.Environ(), "CGO_ENABLED=1")
	}
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %v: %w\n%s", args, err, out)
	}
	if err := copySynced(filepath.Join(filepath.Dir(Bin), "bramble-log"), filepath.Join(dir, "bramble-log")); err != nil {
		return "", err
	}
	return bin, syncFile(bin)
}
