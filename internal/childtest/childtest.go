// Package childtest runs a test again in a fresh process of its test
// binary, for tests of what package initialisation leaves behind: in that
// process no other test has run yet.
package childtest

import (
	"os"
	"os/exec"
	"regexp"
	"testing"
)

// env names the test a child process runs.
const env = "BRAMBLE_CHILDTEST"

// Fresh reports whether the test runs in its fresh process, where it goes
// on. In the test's own process Fresh runs the fresh one, fails t with the
// child's output when the child fails, and returns false: the test then
// returns. Only a top-level test can run this way.
func Fresh(t *testing.T) bool {
	t.Helper()
	if os.Getenv(env) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^"+regexp.QuoteMeta(t.Name())+"$", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+t.Name())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s in a fresh process: %v\n%s", t.Name(), err, out)
	}
	return false
}
