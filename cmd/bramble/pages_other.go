//go:build !linux

package main

// releaseStartupPages does nothing off Linux.
func releaseStartupPages() (int64, error) { return 0, nil }
