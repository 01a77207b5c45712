// Package netnstest gives tests of agent/network real network namespaces:
// named ones (ip netns add, so `ip netns exec` and nft work in them),
// unique per test and process, removed when the test ends. A test that
// needs them fails at once when `ip` is missing or the process may not
// create namespaces (never skips).
package netnstest

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vishvananda/netns"
)

var seq atomic.Int64

// NS is one named network namespace.
type NS struct {
	Name   string
	Handle netns.NsHandle
}

// New creates a namespace named <tag>-<pid>-<n> (at most 15 characters of
// tag kept short by the caller), with loopback up.
func New(t testing.TB, tag string) *NS {
	t.Helper()
	name := fmt.Sprintf("%s%d-%d", tag, os.Getpid(), seq.Add(1))
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add %s: %v: %s", name, err, out)
	}
	h, err := netns.GetFromName(name)
	if err != nil {
		_ = exec.Command("ip", "netns", "del", name).Run()
		t.Fatalf("open netns %s: %v", name, err)
	}
	ns := &NS{Name: name, Handle: h}
	t.Cleanup(func() {
		h.Close()
		if out, err := exec.Command("ip", "netns", "del", name).CombinedOutput(); err != nil {
			t.Errorf("ip netns del %s: %v: %s", name, err, out)
		}
	})
	ns.Run(t, "ip", "link", "set", "lo", "up")
	return ns
}

// Run runs a command inside the namespace and returns its output; a
// failure fails the test.
func (ns *NS) Run(t testing.TB, args ...string) string {
	t.Helper()
	out, err := ns.Try(args...)
	if err != nil {
		t.Fatalf("in %s: %s: %v: %s", ns.Name, strings.Join(args, " "), err, out)
	}
	return out
}

// Try runs a command inside the namespace and returns its output and error.
func (ns *NS) Try(args ...string) (string, error) {
	cmd := exec.Command("ip", append([]string{"netns", "exec", ns.Name}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Do runs fn on an OS thread switched into the namespace: sockets fn
// opens belong to the namespace for their whole life.
func (ns *NS) Do(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		orig, err := netns.Get()
		if err != nil {
			errc <- err
			return
		}
		defer orig.Close()
		if err := netns.Set(ns.Handle); err != nil {
			errc <- fmt.Errorf("enter netns %s: %w", ns.Name, err)
			return
		}
		errc <- fn()
	}()
	return <-errc
}

// Link joins two namespaces with a veth pair, addressing each end
// (CIDR notation) and bringing both up.
func Link(t testing.TB, a *NS, aName, aAddr string, b *NS, bName, bAddr string) {
	t.Helper()
	a.Run(t, "ip", "link", "add", aName, "type", "veth", "peer", "name", bName, "netns", b.Name)
	a.Run(t, "ip", "addr", "add", aAddr, "dev", aName)
	a.Run(t, "ip", "link", "set", aName, "up")
	b.Run(t, "ip", "addr", "add", bAddr, "dev", bName)
	b.Run(t, "ip", "link", "set", bName, "up")
}
