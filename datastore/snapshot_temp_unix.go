//go:build unix

package datastore

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with id pid exists (signal 0
// checks without sending anything; EPERM means it exists as another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
