//go:build helm

package helm

import (
	"fmt"
	"os"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bramble-helm-bin")
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
