//go:build !agentonly

package main

import "github.com/spf13/cobra"

// buildNote ends the root command's summary and `bramble version`'s line;
// the full build needs none.
const buildNote = ""

// commands are the full build's: every node command and every server one.
func commands() []*cobra.Command {
	return append(nodeCommands(), newServerCommand(), newDatastoreCommand(), newUserCommand(), newTokenCommand(), newMQTTCommand(),
		newSecretsEncryptCommand(), newCertificateCommand(), newKubectlCommand())
}
