//go:build !agentonly

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server"
)

func newDatastoreCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "datastore", Short: "Manage the server's datastore"}
	snap := &cobra.Command{Use: "snapshot", Short: "Save or restore a snapshot of the datastore"}
	var dataDir string
	snap.PersistentFlags().StringVar(&dataDir, "data-dir", server.DefaultDataDir, "the server's data dir")
	dbPath := func() string { return datastore.DefaultSQLitePath(dataDir) }

	snap.AddCommand(&cobra.Command{
		Use:   "save FILE",
		Short: "Write a consistent snapshot to FILE (works while the server runs)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := datastore.SnapshotSave(cmd.Context(), dbPath(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "snapshot saved to %s\n", args[0])
			return nil
		},
	}, &cobra.Command{
		Use:   "restore FILE",
		Short: "Replace the datastore with FILE (the server must be stopped)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if server.DataDirInUse(dataDir) {
				return fmt.Errorf("a bramble server is running on data dir %s: stop it before restoring", dataDir)
			}
			if err := datastore.SnapshotRestore(cmd.Context(), args[0], dbPath()); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "datastore restored from %s\n", args[0])
			return nil
		},
	})
	cmd.AddCommand(snap)
	return cmd
}
