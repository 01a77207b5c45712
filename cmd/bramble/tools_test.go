package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime"
)

func TestCtrEnvironment(t *testing.T) {
	env := ctrEnv([]string{"CONTAINERD_NAMESPACE=other"})
	if !slices.Contains(env, "CONTAINERD_ADDRESS=/run/containerd/containerd.sock") || slices.Contains(env, "CONTAINERD_NAMESPACE=bramble") {
		t.Errorf("ctr environment: got %v, want the default address added and the given namespace kept", env)
	}
}

func TestCrictlListings(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	list := []runtime.ContainerStatus{
		{ID: "0123456789abcdef", PodUID: "uid-web-1234567890", Name: "app", Image: "busybox:1", State: runtime.StateRunning,
			LogPath: "/var/log/pods/shop_web-1_uid-web/app/0.log", CreatedAt: now.Add(-90 * time.Second),
			Labels: map[string]string{"pods.bramble.io/attempt": "2"}},
		{ID: "fedcba9876543210", PodUID: "uid-web-1234567890", Name: "init", Image: "busybox:1", State: runtime.StateExited,
			LogPath: "/var/log/pods/shop_web-1_uid-web/init/0.log", CreatedAt: now.Add(-2 * time.Minute)},
	}
	var ps strings.Builder
	writeContainers(&ps, list, false, now)
	if out := ps.String(); !strings.Contains(out, "0123456789abc") || !strings.Contains(out, "web-1") ||
		!strings.Contains(out, "shop") || !strings.Contains(out, "1m ago") || strings.Contains(out, "init") {
		t.Errorf("ps without -a: got\n%s\nwant only the running app container of shop/web-1", out)
	}
	var pods strings.Builder
	writePods(&pods, list, now)
	if out := pods.String(); !strings.Contains(out, "web-1") || !strings.Contains(out, "1/2 running") || !strings.Contains(out, "Ready") {
		t.Errorf("pods: got\n%s\nwant web-1 Ready with 1/2 running", out)
	}
	if ns, pod := podOfLog("/elsewhere/x.log"); ns != "-" || pod != "-" {
		t.Errorf("podOfLog of an unknown shape: got %s/%s, want -/-", ns, pod)
	}
}
