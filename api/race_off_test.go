//go:build !race

package api

// raceBuild: see race_on_test.go.
const raceBuild = false
