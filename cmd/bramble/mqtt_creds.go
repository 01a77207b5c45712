//go:build !agentonly

package main

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/viewers"
)

// viewerClient reaches the API with --kubeconfig, or by default with the
// admin kubeconfig the running server keeps in --data-dir.
func viewerClient(kubeconfig, dataDir string) (*viewers.Client, error) {
	if kubeconfig == "" {
		kubeconfig = server.AdminKubeconfigPath(dataDir)
	}
	kc, err := auth.LoadKubeconfig(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s (is the server running?): %w", kubeconfig, err)
	}
	return viewers.NewClient(kc)
}

// recordViewer records the viewer certificate just written to out, so the
// server accepts it (other roles are not recorded).
func recordViewer(ctx context.Context, kubeconfig, dataDir, role, name, out string) error {
	if role != "viewer" {
		return nil
	}
	c, err := viewerClient(kubeconfig, dataDir)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(out, "client.crt"))
	if err != nil {
		return err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return errors.New("client.crt: no PEM block")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return fmt.Errorf("client.crt: %w", err)
	}
	if err := c.Record(ctx, name, cert); err != nil {
		return fmt.Errorf("credentials written to %s but not recorded, so the server refuses them; remove %s and run again once the server answers: %w", out, out, err)
	}
	return nil
}

func newMQTTListCommand(kubeconfig, dataDir *string) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the viewer credentials the server accepts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := viewerClient(*kubeconfig, *dataDir)
			if err != nil {
				return err
			}
			list, err := c.List(cmd.Context())
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSTATUS\tSERIAL\tEXPIRES")
			for _, v := range list {
				status, serial, exp := "active", v.Serial, v.NotAfter.UTC().Format("2006-01-02T15:04:05Z")
				if v.Revoked {
					status, serial, exp = "revoked", "-", "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Name, status, serial, exp)
			}
			return tw.Flush()
		},
	}
}

func newMQTTDeleteCommand(kubeconfig, dataDir *string) *cobra.Command {
	var aclFile, pidFile string
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Revoke a viewer's credentials (recorded or not): its MQTT sessions and API streams end within seconds",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := viewerClient(*kubeconfig, *dataDir)
			if err != nil {
				return err
			}
			if err := c.Delete(cmd.Context(), args[0]); err != nil {
				return err
			}
			if aclFile != "" {
				if err := revokeMosquitto(aclFile, pidFile, args[0]); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "viewer credential %q revoked\n", args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&aclFile, "mosquitto-acl", "", "also remove the viewer from this mosquitto ACL file")
	cmd.Flags().StringVar(&pidFile, "mosquitto-pid", "", "with --mosquitto-acl: mosquitto's pid file, to make it reload the ACL")
	return cmd
}

// revokeMosquitto removes viewer name's section from the mosquitto ACL and
// has mosquitto reload it, which cuts its live sessions off.
func revokeMosquitto(aclFile, pidFile, name string) error {
	err := broker.UpdateMosquittoACL(aclFile, func(a *broker.MosquittoACL) {
		a.Viewers = slices.DeleteFunc(a.Viewers, func(v string) bool { return v == name })
	})
	if err != nil {
		return fmt.Errorf("--mosquitto-acl %s: %w", aclFile, err)
	}
	if pidFile == "" {
		return nil
	}
	if err := broker.ReloadMosquitto(pidFile); err != nil {
		return fmt.Errorf("--mosquitto-pid %s: %w", pidFile, err)
	}
	return nil
}
