//go:build !agentonly

package main

import (
	"slices"
	"testing"

	"github.com/bramble-edge/bramble/server"
)

func TestKubectlEnvironment(t *testing.T) {
	yes := func(string) bool { return true }
	no := func(string) bool { return false }
	want := "KUBECONFIG=" + server.DefaultKubeconfigPath
	if env := kubectlEnv([]string{"HOME=/root"}, yes); !slices.Contains(env, want) {
		t.Errorf("no KUBECONFIG, admin kubeconfig readable: got %v, want %s", env, want)
	}
	if env := kubectlEnv([]string{"HOME=/root"}, no); len(env) != 1 {
		t.Errorf("admin kubeconfig unreadable: got %v, want the environment unchanged", env)
	}
	if env := kubectlEnv([]string{"KUBECONFIG=/mine"}, yes); len(env) != 1 {
		t.Errorf("KUBECONFIG set: got %v, want it kept alone", env)
	}
}
