//go:build race

package api

// raceBuild: the race detector is on, and sync.Pool drops what it is
// given at random, so allocation counts do not hold.
const raceBuild = true
