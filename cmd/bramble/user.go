//go:build !agentonly

package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/server"
	"github.com/bramble-edge/bramble/server/auth"
)

func newUserCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "user", Short: "Manage people's API tokens (each bound to a ClusterRole)"}
	var kubeconfig string
	cmd.PersistentFlags().StringVar(&kubeconfig, "kubeconfig", server.DefaultKubeconfigPath, "admin kubeconfig used to reach the server")
	client := func() (*auth.UserClient, error) {
		kc, err := auth.LoadKubeconfig(kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
		}
		return auth.NewUserClient(kc)
	}

	var role, out string
	create := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a user token and write a kubeconfig holding it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := auth.ValidateUserName(args[0]); err != nil {
				return err
			}
			if err := auth.ValidateUserRole(role); err != nil {
				return fmt.Errorf("--role: %w", err)
			}
			c, err := client()
			if err != nil {
				return err
			}
			token, err := c.CreateUser(cmd.Context(), args[0], role)
			if err != nil {
				return err
			}
			wait, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
			defer cancel()
			if err := c.WaitForBinding(wait, args[0]); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %v (the token may be refused until the server binds it)\n", err)
			}
			if out == "" {
				out = args[0] + ".kubeconfig"
			}
			if err := auth.WriteUserKubeconfig(out, c.ServerURL(), c.CAPEM(), token); err != nil {
				return fmt.Errorf("--out %s: %w", out, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "user %s (%s) created; kubeconfig written to %s\n", args[0], role, out)
			return nil
		},
	}
	create.Flags().StringVar(&role, "role", auth.RoleViewer, "admin (ClusterRole cluster-admin), viewer (view) or the name of any ClusterRole")
	create.Flags().StringVar(&out, "out", "", "where to write the user's kubeconfig (default NAME.kubeconfig)")

	list := &cobra.Command{
		Use:   "list",
		Short: "List user tokens",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			users, err := c.ListUsers(cmd.Context())
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tROLE\tTOKEN ID\tCREATED")
			for _, u := range users {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", u.Name, u.Role, u.ID, u.Created.Format(time.RFC3339))
			}
			return w.Flush()
		},
	}
	del := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a user; its token stops working",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			if err := c.DeleteUser(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "user %s deleted\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(create, list, del)
	return cmd
}
