package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/version"
)

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print bramble's version and the Kubernetes API version it serves",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "bramble %s (Kubernetes API %s, %s, %s/%s)%s\n",
				version.Version, version.KubeGitVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH, buildNote)
			return nil
		},
	}
}
