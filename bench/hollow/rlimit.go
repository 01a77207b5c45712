package main

import (
	"fmt"
	"syscall"
)

// raiseFileLimit lifts the soft RLIMIT_NOFILE to the hard limit (every
// hollow node holds an MQTT connection, and joining holds HTTPS ones) and
// returns the limit now in force.
func raiseFileLimit() (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("read RLIMIT_NOFILE: %w", err)
	}
	if lim.Cur >= lim.Max {
		return lim.Cur, nil
	}
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("set RLIMIT_NOFILE to %d: %w", lim.Max, err)
	}
	return lim.Cur, nil
}
