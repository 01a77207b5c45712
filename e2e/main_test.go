// Package e2e drives the real bramble binary with the real kubectl
// (/usr/bin/kubectl, the dispatcher that picks kubectl 1.27-1.33 by the
// server's reported minor version) through package cluster.
package e2e

import (
	"fmt"
	"os"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bramble-e2e-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := cluster.Build(dir, true); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
