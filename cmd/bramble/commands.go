package main

import "github.com/spf13/cobra"

// nodeCommands are the commands of every build: the agent and the tools an
// operator uses on a node.
func nodeCommands() []*cobra.Command {
	return []*cobra.Command{newAgentCommand(), newVersionCommand(), newCheckConfigCommand(), newCtrCommand(), newCrictlCommand()}
}
