//go:build !agentonly

package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server"
	"github.com/bramble-edge/bramble/server/pki"
)

func newMQTTCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "mqtt", Short: "MQTT identities for watchers and external brokers"}
	creds := &cobra.Command{Use: "credentials", Short: "Issue MQTT client certificates from the cluster CA"}
	var role, name, out, dataDir, aclFile, pidFile, kubeconfig string
	var ttl time.Duration
	create := &cobra.Command{
		Use:   "create",
		Short: "Write ca.crt, client.crt and client.key for an MQTT client (run on the server)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			if name == "" && role != "server" {
				return fmt.Errorf("--name is required for --role %s", role)
			}
			ca, err := pki.Load(filepath.Join(dataDir, "server", "tls"), pki.Config{})
			if err != nil {
				return fmt.Errorf("--data-dir %s: cluster CA: %w", dataDir, err)
			}
			if err := issueMQTTCredentials(ca, role, name, out, ttl); err != nil {
				return err
			}
			if err := recordViewer(cmd.Context(), kubeconfig, dataDir, role, name, out); err != nil {
				return err
			}
			if aclFile != "" {
				if err := grantMosquitto(aclFile, pidFile, role, name); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s credentials for %q written to %s\n", role, name, out)
			return nil
		},
	}
	f := create.Flags()
	f.StringVar(&role, "role", "viewer", "viewer (may subscribe under bramble/v1/watch/) or server (an external broker's bramble server)")
	f.StringVar(&name, "name", "", "the identity's name, the certificate's CN (servers: bramble:server or bramble:server:<name>, the default)")
	f.StringVar(&out, "out", "", "folder to write ca.crt, client.crt and client.key into")
	f.DurationVar(&ttl, "ttl", 365*24*time.Hour, "how long the certificate is valid")
	f.StringVar(&aclFile, "mosquitto-acl", "", "also grant the identity in this mosquitto ACL file")
	f.StringVar(&pidFile, "mosquitto-pid", "", "with --mosquitto-acl: mosquitto's pid file, to make it reload the ACL")
	creds.PersistentFlags().StringVar(&kubeconfig, "kubeconfig", "", "admin kubeconfig to reach the server (default: <data-dir>/server/cred/admin.kubeconfig)")
	creds.PersistentFlags().StringVar(&dataDir, "data-dir", server.DefaultDataDir, "the server's data dir, where the cluster CA is")
	creds.AddCommand(create, newMQTTListCommand(&kubeconfig, &dataDir), newMQTTDeleteCommand(&kubeconfig, &dataDir))
	cmd.AddCommand(creds)
	return cmd
}

func issueMQTTCredentials(ca *pki.PKI, role, name, out string, ttl time.Duration) error {
	switch role {
	case "viewer":
		return broker.CreateViewerCredentials(ca, name, out, ttl)
	case "server":
		return broker.CreateServerCredentials(ca, name, out, ttl)
	}
	return fmt.Errorf("--role %q: must be viewer or server", role)
}

func grantMosquitto(aclFile, pidFile, role, name string) error {
	err := broker.UpdateMosquittoACL(aclFile, func(a *broker.MosquittoACL) {
		if role == "viewer" {
			a.Viewers = append(a.Viewers, name)
		} else {
			a.Servers = append(a.Servers, name)
		}
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
