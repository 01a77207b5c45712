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
	"github.com/bramble-edge/bramble/server"
)

// The k3s-style conveniences: `bramble kubectl` and `bramble ctr` run the
// installed tools pointed at this machine's bramble, so an operator on a
// node types neither a kubeconfig path nor containerd's namespace.

func newKubectlCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "kubectl [kubectl arguments]",
		Short: "Run the installed kubectl with bramble's admin kubeconfig (unless KUBECONFIG is set)",
		Long: "Runs kubectl from PATH with every argument as given. When KUBECONFIG is not set and " +
			server.DefaultKubeconfigPath + " can be read, KUBECONFIG points at it.",
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			return execTool("kubectl", args, kubectlEnv(os.Environ(), readable))
		},
	}
}

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

// kubectlEnv adds KUBECONFIG when it is missing and the admin kubeconfig
// can be read.
func kubectlEnv(env []string, canRead func(string) bool) []string {
	if hasEnv(env, "KUBECONFIG") || !canRead(server.DefaultKubeconfigPath) {
		return env
	}
	return append(env, "KUBECONFIG="+server.DefaultKubeconfigPath)
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

func readable(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	f.Close()
	return true
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
