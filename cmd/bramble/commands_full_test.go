//go:build !agentonly

package main

import (
	"slices"
	"testing"
)

// TestServerCommandNames: the commands the full build adds to the node's
// are exactly those the agent-only build answers with its refusal
// (serverCommandNames in commands_agentonly.go: change both together).
func TestServerCommandNames(t *testing.T) {
	serverCommandNames := []string{"certificate", "datastore", "kubectl", "mqtt", "secrets-encrypt", "server", "token", "user"}
	node := map[string]bool{}
	for _, c := range nodeCommands() {
		node[c.Name()] = true
	}
	var added []string
	for _, c := range commands() {
		if !node[c.Name()] {
			added = append(added, c.Name())
		}
	}
	slices.Sort(added)
	if !slices.Equal(added, serverCommandNames) {
		t.Errorf("the full build's commands beyond the node's: got %v, want the agent-only build's serverCommandNames %v", added, serverCommandNames)
	}
}
