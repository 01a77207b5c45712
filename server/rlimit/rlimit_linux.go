package rlimit

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// nrOpenPath holds the most descriptors a process may be allowed.
const nrOpenPath = "/proc/sys/fs/nr_open"

// Raise lifts RLIMIT_NOFILE: both limits to fs.nr_open when the process
// may raise its hard limit, else the soft limit to the hard one.
func Raise() (Result, error) {
	var res Result
	before, err := get()
	if err != nil {
		return res, err
	}
	res.Before, res.After = before, before
	if ceiling, err := nrOpen(); err == nil && ceiling > before.Hard {
		err := set(Limit{Soft: ceiling, Hard: ceiling})
		if err == nil {
			res.After, err = get()
			return res, err
		}
		if !errors.Is(err, syscall.EPERM) {
			return res, err
		}
		res.Refused = true
	}
	if before.Soft < before.Hard {
		if err := set(Limit{Soft: before.Hard, Hard: before.Hard}); err != nil {
			return res, err
		}
	}
	res.After, err = get()
	return res, err
}

func get() (Limit, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return Limit{}, fmt.Errorf("read RLIMIT_NOFILE: %w", err)
	}
	return Limit{Soft: lim.Cur, Hard: lim.Max}, nil
}

func set(l Limit) error {
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: l.Soft, Max: l.Hard}); err != nil {
		return fmt.Errorf("set RLIMIT_NOFILE to %d/%d: %w", l.Soft, l.Hard, err)
	}
	return nil
}

// nrOpen reads fs.nr_open.
func nrOpen() (uint64, error) {
	b, err := os.ReadFile(nrOpenPath)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
}
