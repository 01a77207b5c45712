package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/agent"
)

// The k3s-style conveniences: `bramble kubectl` (tools_kubectl.go) and
// `bramble ctr` run the installed tools pointed at this machine's bramble,
// so an operator on a node types neither a kubeconfig path nor
// containerd's namespace.

func newCtrCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "ctr [ctr arguments]",
		Short: "Run containerd's ctr on bramble's containers (namespace " + agent.DefaultNamespace + ")",
		Long: "Runs ctr from PATH (Debian's containerd package) with every argument as given. Unless set, " +
			"CONTAINERD_ADDRESS is " + agent.DefaultRuntimeEndpoint + " and CONTAINERD_NAMESPACE is " +
			agent.DefaultNamespace + ", where the agent keeps its images and containers.",
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			return execTool("ctr", args, ctrEnv(os.Environ()))
		},
	}
}

// ctrEnv adds containerd's address and bramble's namespace when missing.
func ctrEnv(env []string) []string {
	if !hasEnv(env, "CONTAINERD_ADDRESS") {
		env = append(env, "CONTAINERD_ADDRESS="+agent.DefaultRuntimeEndpoint)
	}
	if !hasEnv(env, "CONTAINERD_NAMESPACE") {
		env = append(env, "CONTAINERD_NAMESPACE="+agent.DefaultNamespace)
	}
	return env
}

func hasEnv(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// execTool replaces this process with name from PATH, so its exit code,
// terminal and signals are the tool's own.
func execTool(name string, args, env []string) error {
	path, err := exec.LookPath(name)
	if errors.Is(err, exec.ErrNotFound) {
		return fmt.Errorf("%s is not installed (not found in PATH): %s", name, installHint[name])
	}
	if err != nil {
		return err
	}
	return syscall.Exec(path, append([]string{name}, args...), env)
}

// installHint says where each tool comes from.
var installHint = map[string]string{
	"kubectl": "install kubectl (https://kubernetes.io/docs/tasks/tools/), 1.27 to 1.33",
	"ctr":     "it comes with containerd (apt-get install containerd)",
}
