// Command bramble is the one binary of bramble: the server, and (later) the
// agent, plus the tools to manage a cluster's tokens, users and datastore.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := &cobra.Command{
		Use:           "bramble",
		Short:         "A lightweight Kubernetes-style orchestrator for edge and IoT fleets",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newServerCommand(), newVersionCommand(), newDatastoreCommand(), newUserCommand(), newTokenCommand(), newMQTTCommand(), newCheckConfigCommand())
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "bramble:", err)
		os.Exit(1)
	}
}
