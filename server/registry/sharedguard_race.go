//go:build race

package registry

// checkShared: see guardShared.
const checkShared = true
