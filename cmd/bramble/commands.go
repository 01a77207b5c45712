package main

import "github.com/spf13/cobra"

// nodeCommands are the commands of every build: the agent and the tools an
// operator uses on a node.
func nodeCommands() []*cobra.Command {
	return []*cobra.Command{newAgentCommand(), newVersionCommand(), newCheckConfigCommand(), newCtrCommand(), newCrictlCommand()}
}

// serverCommandNames are the commands only the full build has: the server
// and the tools of its datastore, users, tokens, broker and certificates.
var serverCommandNames = []string{"certificate", "datastore", "kubectl", "mqtt", "secrets-encrypt", "server", "token", "user"}
