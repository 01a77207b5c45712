//go:build agentonly

package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestAgentOnlyCommands: the agent-only build runs the node's commands,
// names itself in `bramble version`, and answers each server command with
// the build that has it.
func TestAgentOnlyCommands(t *testing.T) {
	byName := map[string]bool{}
	for _, c := range commands() {
		byName[c.Name()] = true
		if c.Name() == "version" {
			var out bytes.Buffer
			c.SetOut(&out)
			if err := c.RunE(c, nil); err != nil || !strings.Contains(out.String(), "(agent-only build)") {
				t.Errorf("bramble version: got %q, %v; want the line to name the agent-only build", out.String(), err)
			}
		}
	}
	for _, name := range []string{"agent", "version", "check-config", "ctr", "crictl"} {
		if !byName[name] {
			t.Errorf("the agent-only build has no %q command", name)
		}
	}
	for _, c := range commands() {
		for _, name := range serverCommandNames {
			if c.Name() != name {
				continue
			}
			err := c.RunE(c, []string{"--help"})
			if err == nil || !strings.Contains(err.Error(), "agent-only build") || !strings.Contains(err.Error(), "`bramble "+name+"` needs the full build") {
				t.Errorf("bramble %s in the agent-only build: got %v, want a refusal naming the full build", name, err)
			}
			if !c.Hidden {
				t.Errorf("bramble %s in the agent-only build is listed in the help", name)
			}
		}
	}
}
