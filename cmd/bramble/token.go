//go:build !agentonly

package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/server"
	"github.com/bramble-edge/bramble/server/join"
)

func newTokenCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "token", Short: "Manage join tokens for agents"}
	var kubeconfig string
	cmd.PersistentFlags().StringVar(&kubeconfig, "kubeconfig", server.DefaultKubeconfigPath, "admin kubeconfig used to reach the server")
	client := func() (*join.TokenClient, error) { return join.NewTokenClientFromFile(kubeconfig) }

	var ttl time.Duration
	var description string
	var usages []string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a join token and print it (K10<CA hash>::<id>.<secret>)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if ttl < 0 {
				return fmt.Errorf("--ttl %s: must not be negative (0 means the token never expires)", ttl)
			}
			if err := join.ValidateDescription(description); err != nil {
				return fmt.Errorf("--description: %w", err)
			}
			if err := join.ValidateUsages(usages); err != nil {
				return fmt.Errorf("--%w", err)
			}
			c, err := client()
			if err != nil {
				return err
			}
			token, err := c.CreateToken(cmd.Context(), ttl, description, usages...)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), token)
			return nil
		},
	}
	create.Flags().DurationVar(&ttl, "ttl", 24*time.Hour, "how long the token may be used; 0 means forever")
	create.Flags().StringVar(&description, "description", "", "a note shown by token list")
	create.Flags().StringSliceVar(&usages, "usages", join.DefaultUsages,
		"what the token may do: join (a new node takes a free name), rejoin (a node that joined before, proving it with its node password, joins again)")

	list := &cobra.Command{
		Use:   "list",
		Short: "List join tokens (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			tokens, err := c.ListTokens(cmd.Context())
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tEXPIRES\tCREATED\tUSAGES\tNODES\tDESCRIPTION")
			for _, t := range tokens {
				expires := "never"
				if !t.Expires.IsZero() {
					expires = t.Expires.Format(time.RFC3339)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, expires, t.Created.Format(time.RFC3339),
					strings.Join(t.Usages, ","), orNone(t.Nodes), t.Description)
			}
			return w.Flush()
		},
	}
	del := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a join token; agents that already joined keep their certificates",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			if err := c.DeleteToken(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "token %s deleted\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(create, list, del)
	return cmd
}

// orNone joins names with commas, or says <none>.
func orNone(names []string) string {
	if len(names) == 0 {
		return "<none>"
	}
	return strings.Join(names, ",")
}
