// Command bramble-log is the log driver containerd's shim starts for each
// container the agent runs: it copies the container's stdout and stderr
// into rotated CRI-format log files. It is `bramble container-log` in a
// binary that links nothing else, so the one process per container stays
// small; the agent uses it when it is installed beside bramble.
package main

import (
	"fmt"
	"os"

	"github.com/bramble-edge/bramble/agent/runtime/logdriver"
)

func main() {
	if len(os.Args) != 3 || os.Args[1] != logdriver.Command {
		fmt.Fprintf(os.Stderr, "usage: %s %s CONFIG (started by containerd's shim for the bramble agent)\n", os.Args[0], logdriver.Command)
		os.Exit(2)
	}
	if err := logdriver.Run(os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "bramble-log:", err)
		os.Exit(1)
	}
}
