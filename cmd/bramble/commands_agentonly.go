//go:build agentonly

package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// The agent-only build (go build -tags agentonly, the bramble-agent-ARCH
// release file, what install.sh puts on an agent) links `bramble agent`
// and the node's tools without the server, its datastore (and cgo
// SQLite), the embedded broker, the controllers and the scheduler. Their
// package initialisation alone leaves about 1 MiB more live heap in an
// agent of the full build; BENCHMARKS.md measures both.

const buildNote = " (agent-only build)"

// serverCommandNames are the commands only the full build has: the server
// and the tools of its datastore, users, tokens, broker and certificates
// (commands_full.go; its test holds the same list).
var serverCommandNames = []string{"certificate", "datastore", "kubectl", "mqtt", "secrets-encrypt", "server", "token", "user"}

// commands are the node commands, and for each server command one that
// says which build has it.
func commands() []*cobra.Command {
	cmds := nodeCommands()
	for _, name := range serverCommandNames {
		cmds = append(cmds, &cobra.Command{
			Use:                name,
			Hidden:             true,
			DisableFlagParsing: true,
			RunE: func(*cobra.Command, []string) error {
				return fmt.Errorf("%s: this bramble is the agent-only build, which runs the agent and the node's tools; "+
					"`bramble %s` needs the full build (the bramble-ARCH release file, or install.sh as a server)", name, name)
			},
		})
	}
	return cmds
}
