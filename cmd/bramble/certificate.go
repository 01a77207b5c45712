//go:build !agentonly

package main

import (
	"fmt"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server"
	"github.com/bramble-edge/bramble/server/pki"
)

func newCertificateCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "certificate", Short: "Check and rotate the server's certificates and the cluster CA"}
	var dataDir string
	cmd.PersistentFlags().StringVar(&dataDir, "data-dir", server.DefaultDataDir, "the server's data dir")
	var services []string
	rotate := &cobra.Command{
		Use:   "rotate",
		Short: "Set aside the server's certificates so its next start issues new ones (same CA; run it with the server stopped)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			backup, err := pki.Rotate(filepath.Join(dataDir, "server", "tls"), services, time.Now())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "moved the old certificates to %s; start (or restart) the server to issue new ones\n", backup)
			return nil
		},
	}
	rotate.Flags().StringSliceVar(&services, "service", nil, fmt.Sprintf("certificates to rotate, of %v (default all)", pki.ServiceNames()))
	check := &cobra.Command{
		Use:   "check",
		Short: "List the certificates in the data dir and when they expire",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return printCertificates(cmd, dataDir) },
	}
	cmd.AddCommand(rotate, check, newRotateCACommand(&dataDir))
	return cmd
}

func printCertificates(cmd *cobra.Command, dataDir string) error {
	tlsDir := filepath.Join(dataDir, "server", "tls")
	infos := pki.Inspect([]string{filepath.Join(tlsDir, "ca.crt"), filepath.Join(tlsDir, pki.NextCA+".crt"),
		filepath.Join(tlsDir, pki.PreviousCA+".crt"), filepath.Join(tlsDir, "serving.crt"),
		filepath.Join(tlsDir, "client-admin.crt"), filepath.Join(dataDir, "agent", join.CertFile)})
	if len(infos) == 0 {
		return fmt.Errorf("no certificates under %s (wrong --data-dir?)", dataDir)
	}
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "FILE\tSUBJECT\tEXPIRES\tDAYS LEFT")
	now := time.Now()
	for _, c := range infos {
		if c.Err != nil {
			fmt.Fprintf(w, "%s\t-\t%v\t-\n", c.File, c.Err)
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\n", c.File, c.Subject, c.NotAfter.UTC().Format(time.RFC3339), int(c.NotAfter.Sub(now).Hours()/24))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return printBundleReport(cmd, tlsDir)
}
