package pods

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/network/sandbox"
	"github.com/bramble-edge/bramble/clock"
)

// fakeNetwork hands out sandboxes once ready; it records teardowns and GCs.
type fakeNetwork struct {
	mu        sync.Mutex
	ready     bool
	setups    int
	torndown  []string
	gcKept    []map[string]bool
	gcBefore  int // setups done when GC ran
	knownUIDs []string
	failErr   error // every Setup fails with it when set
	tries     int
}

func (f *fakeNetwork) Setup(_ context.Context, pod *corev1.Pod) (*sandbox.Sandbox, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tries++
	if f.failErr != nil {
		return nil, f.failErr
	}
	if !f.ready {
		return nil, sandbox.ErrNoPodCIDR
	}
	f.setups++
	return &sandbox.Sandbox{NetNS: "/run/ns/net", UTSNS: "/run/ns/uts", HostsFile: "/run/hosts",
		HostnameFile: "/run/hostname", Hostname: pod.Name, IPs: []netip.Addr{netip.MustParseAddr("10.42.0.9")}}, nil
}

func (f *fakeNetwork) Teardown(_ context.Context, uid string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.torndown = append(f.torndown, uid)
	return nil
}

func (f *fakeNetwork) GC(_ context.Context, keep func(string) bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	kept := map[string]bool{}
	for _, uid := range f.knownUIDs {
		kept[uid] = keep(uid)
	}
	f.gcKept, f.gcBefore = append(f.gcKept, kept), f.setups
	return nil
}

func (f *fakeNetwork) setReady() {
	f.mu.Lock()
	f.ready = true
	f.mu.Unlock()
}

func (f *fakeNetwork) snapshot() (setups int, torndown []string, gcs []map[string]bool, before int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.setups, append([]string(nil), f.torndown...), append([]map[string]bool(nil), f.gcKept...), f.gcBefore
}

// A pod waits for the node's pod range with the reason in its status,
// then runs in its sandbox and reports the sandbox's address; the GC ran
// once, first; the sandbox goes with the pod.
func TestPodWaitsForItsNetworkAndReleasesIt(t *testing.T) {
	rt := newFakeRuntime(clock.Real{})
	store, log := &fakeStore{}, &statusLog{}
	net := &fakeNetwork{knownUIDs: []string{"uid-1", "gone"}}
	m, err := NewManager(rt, store.lookup, log.record, Config{DataDir: t.TempDir(), NodeIP: "192.168.1.5",
		SyncPeriod: 10 * time.Millisecond, Network: net})
	if err != nil {
		t.Fatal(err)
	}
	m.Start(context.Background())
	t.Cleanup(m.Stop)
	m.Sync([]*corev1.Pod{testPod(corev1.RestartPolicyAlways, "app")})
	waitFor(t, "the pod to wait for its network", func() bool {
		s, _ := log.get("uid-1")
		w := s.ContainerStatuses
		return len(w) == 1 && w[0].State.Waiting != nil && strings.Contains(w[0].State.Waiting.Message, "spec.podCIDR") && s.PodIP == ""
	})
	if rt.count() != 0 {
		t.Fatalf("containers before the pod's network: got %d, want none", rt.count())
	}
	net.setReady()
	waitFor(t, "the pod running with the sandbox's address", func() bool {
		s, _ := log.get("uid-1")
		return s.Phase == corev1.PodRunning && s.PodIP == "10.42.0.9" && s.HostIP == "192.168.1.5"
	})
	m.Delete("uid-1")
	waitFor(t, "the pod's sandbox torn down", func() bool { _, down, _, _ := net.snapshot(); return len(down) == 1 })
	setups, _, gcs, before := net.snapshot()
	if len(gcs) != 1 || before != 0 || !gcs[0]["uid-1"] || gcs[0]["gone"] || setups != 1 {
		t.Errorf("GC: got %v with %d setups before it (%d setups in all), want one GC keeping uid-1 only, before any setup", gcs, before, setups)
	}
}

// A failing setup (an ADD that errs) is retried with back-off, not on
// every 10 ms sync; the reason shows in the container's status.
func TestFailedSetupBacksOff(t *testing.T) {
	rt := newFakeRuntime(clock.Real{})
	store, log := &fakeStore{}, &statusLog{}
	net := &fakeNetwork{failErr: errors.New("CNI ADD bramble: plugin exploded")}
	m, err := NewManager(rt, store.lookup, log.record, Config{DataDir: t.TempDir(), SyncPeriod: 10 * time.Millisecond, Network: net})
	if err != nil {
		t.Fatal(err)
	}
	m.Start(context.Background())
	t.Cleanup(m.Stop)
	m.Sync([]*corev1.Pod{testPod(corev1.RestartPolicyAlways, "app")})
	waitFor(t, "the reason in the status", func() bool {
		s, _ := log.get("uid-1")
		w := s.ContainerStatuses
		return len(w) == 1 && w[0].State.Waiting != nil && strings.Contains(w[0].State.Waiting.Message, "plugin exploded")
	})
	time.Sleep(1500 * time.Millisecond)
	net.mu.Lock()
	tries := net.tries
	net.mu.Unlock()
	if tries < 2 || tries > 3 {
		t.Errorf("setups in 1.5 s of 10 ms syncs: got %d, want 2-3 (after 0 s, 1 s, maybe 3 s)", tries)
	}
}

// A hostNetwork pod never waits for the node's pod range: it runs at once
// on the host's network, with the node's address.
func TestHostNetworkPodDoesNotWait(t *testing.T) {
	rt := newFakeRuntime(clock.Real{})
	store, log := &fakeStore{}, &statusLog{}
	m, err := NewManager(rt, store.lookup, log.record, Config{DataDir: t.TempDir(), NodeIP: "192.168.1.5",
		SyncPeriod: 10 * time.Millisecond, Network: &sandboxOnlyHost{}})
	if err != nil {
		t.Fatal(err)
	}
	m.Start(context.Background())
	t.Cleanup(m.Stop)
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Spec.HostNetwork = true
	m.Sync([]*corev1.Pod{pod})
	waitFor(t, "the host-network pod running with the node's address", func() bool {
		s, _ := log.get("uid-1")
		return s.Phase == corev1.PodRunning && s.PodIP == "192.168.1.5"
	})
}

// sandboxOnlyHost is the real Manager's answer before the node has a
// range: host-network pods get an empty sandbox, the others wait.
type sandboxOnlyHost struct{ fakeNetwork }

func (s *sandboxOnlyHost) Setup(_ context.Context, pod *corev1.Pod) (*sandbox.Sandbox, error) {
	if pod.Spec.HostNetwork {
		return &sandbox.Sandbox{Hostname: pod.Name}, nil
	}
	return nil, sandbox.ErrNoPodCIDR
}
