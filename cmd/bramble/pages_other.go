//go:build !linux

package main

import "time"

// releaseStartupPages does nothing off Linux.
func releaseStartupPages() (int64, error) { return 0, nil }

// processCPU is zero off Linux: the release it times does nothing there.
func processCPU() time.Duration { return 0 }

// fileRSS is not measured off Linux.
func fileRSS() int64 { return 0 }
