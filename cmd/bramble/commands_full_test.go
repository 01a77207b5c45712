//go:build !agentonly

package main

import (
	"slices"
	"testing"
)

// TestServerCommandNames: the commands the full build adds to the node's
// are exactly those the agent-only build answers with its refusal.
func TestServerCommandNames(t *testing.T) {
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
		t.Errorf("the full build's commands beyond the node's: got %v, want serverCommandNames %v", added, serverCommandNames)
	}
}
