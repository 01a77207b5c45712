package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/agent"
	"github.com/bramble-edge/bramble/agent/checkconfig"
)

func newCheckConfigCommand() *cobra.Command {
	var cfg checkconfig.Config
	cmd := &cobra.Command{
		Use:   "check-config",
		Short: "Check that this machine can run bramble's agent: kernel, cgroups, containerd, runc",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			report := checkconfig.Run(cmd.Context(), cfg)
			if report.Print(cmd.OutOrStdout()) {
				return fmt.Errorf("check-config: some checks failed; see the fixes above")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&cfg.ContainerdSocket, "containerd-socket", checkconfig.DefaultContainerdSocket, "containerd's socket")
	cmd.Flags().StringVar(&cfg.DataDir, "data-dir", agent.DefaultDataDir, "bramble's data dir")
	return cmd
}
