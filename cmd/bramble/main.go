// Command bramble is the one binary of bramble: the server, the agent, and
// the tools to manage a cluster's tokens, users and datastore. Built with
// the agentonly tag it is the agent-only build (commands_agentonly.go).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/agent/runtime/logdriver"
)

func main() {
	// containerd's shim starts this binary as each container's log writer;
	// it must not go through cobra (or start anything else).
	if len(os.Args) == 3 && os.Args[1] == logdriver.Command {
		if err := logdriver.Run(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "bramble container-log:", err)
			os.Exit(1)
		}
		return
	}
	stopMemoryProfiling()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := &cobra.Command{
		Use:           "bramble",
		Short:         "A lightweight Kubernetes-style orchestrator for edge and IoT fleets" + buildNote,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(commands()...)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "bramble:", err)
		os.Exit(1)
	}
}
