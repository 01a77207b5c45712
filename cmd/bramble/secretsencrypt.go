//go:build !agentonly

package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/server"
	"github.com/bramble-edge/bramble/server/encryption"
)

// newSecretsEncryptCommand is `bramble secrets-encrypt`, named as k3s
// names it; the running server does the work online (no restart).
func newSecretsEncryptCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "secrets-encrypt", Short: "Control the encryption of Secrets at rest"}
	var kubeconfig string
	cmd.PersistentFlags().StringVar(&kubeconfig, "kubeconfig", server.DefaultKubeconfigPath, "admin kubeconfig used to reach the server")
	client := func() (*encryption.Client, error) { return encryption.NewClientFromFile(kubeconfig) }
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Show whether Secrets are encrypted, the keys, and how many Secrets each key holds",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			st, err := c.Status(cmd.Context())
			if err != nil {
				return err
			}
			return printEncryptionStatus(cmd.OutOrStdout(), st)
		},
	})
	for _, op := range [][2]string{
		{"enable", "Encrypt new writes with the newest key (drawn if none) and reencrypt every Secret"},
		{"disable", "Store new writes in plaintext and rewrite every Secret so; keys stay listed"},
		{"rotate-keys", "Draw a new key, make it current and reencrypt every Secret with it"},
		{"reencrypt", "Rewrite every Secret with the current key"},
	} {
		cmd.AddCommand(newEncryptionOpCommand(op[0], op[1], client))
	}
	return cmd
}

// newEncryptionOpCommand is one of the changes; the server answers once
// every Secret is rewritten.
func newEncryptionOpCommand(op, short string, client func() (*encryption.Client, error)) *cobra.Command {
	var prune bool
	cmd := &cobra.Command{Use: op, Short: short, Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			res, err := c.Do(cmd.Context(), op, prune)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d Secrets rewritten, %d already current\n",
				op, res.Reencrypted.Rewritten, res.Reencrypted.Current)
			return printEncryptionStatus(cmd.OutOrStdout(), res.Status)
		}}
	if op == "rotate-keys" {
		cmd.Flags().BoolVar(&prune, "prune", false, "then remove the old keys no Secret uses (snapshots taken before cannot be read without them)")
	}
	return cmd
}

// printEncryptionStatus prints st as k3s's status does, then the keys.
func printEncryptionStatus(out io.Writer, st encryption.Status) error {
	state := "Disabled"
	if st.Enabled {
		state = "Enabled"
	}
	fmt.Fprintf(out, "Encryption Status: %s\nCurrent Rotation Stage: %s\nKeys File: %s\nKeys Hash: %s\n",
		state, st.Stage, st.KeysFile, st.KeysHash)
	fmt.Fprintf(out, "Plaintext Secrets: %d\n", st.Plaintext)
	if st.Unknown > 0 {
		fmt.Fprintf(out, "Secrets under keys not in the keys file: %d\n", st.Unknown)
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "\nACTIVE\tKEY\tCREATED\tSECRETS")
	for _, k := range st.Keys {
		active := ""
		if k.Current {
			active = "*"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\n", active, k.ID, k.Created.Format(time.RFC3339), k.Secrets)
	}
	return w.Flush()
}
