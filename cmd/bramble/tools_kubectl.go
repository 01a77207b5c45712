//go:build !agentonly

package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/server"
)

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

// kubectlEnv adds KUBECONFIG when it is missing and the admin kubeconfig
// can be read.
func kubectlEnv(env []string, canRead func(string) bool) []string {
	if hasEnv(env, "KUBECONFIG") || !canRead(server.DefaultKubeconfigPath) {
		return env
	}
	return append(env, "KUBECONFIG="+server.DefaultKubeconfigPath)
}

func readable(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
