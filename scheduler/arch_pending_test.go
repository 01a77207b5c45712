package scheduler

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/clock/clocktest"
	"github.com/bramble-edge/bramble/datastore"
)

// lookupSource is a fake background lookup (a PendingImagePlatforms):
// answers and pending lookups as the test sets them.
type lookupSource struct {
	mu        sync.Mutex
	platforms map[string][]string
	pending   map[string]bool
}

func newLookupSource() *lookupSource {
	return &lookupSource{platforms: map[string][]string{}, pending: map[string]bool{}}
}

func (l *lookupSource) Platforms(image string) ([]string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.platforms[image]
	return p, ok
}

func (l *lookupSource) Pending(image string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pending[image]
}

// answer ends the lookup of image; no platforms means it failed.
func (l *lookupSource) answer(image string, platforms ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.pending, image)
	if len(platforms) > 0 {
		l.platforms[image] = platforms
	}
}

func (l *lookupSource) lookingUp(image string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending[image] = true
}

func TestArchResolutionWithLookups(t *testing.T) {
	const app, side = "docker.io/team/app:1", "docker.io/team/side:1"
	nodes := []*corev1.Node{platformNode("amd", "amd64", `{"team/app:1": ["linux/arm64"]}`), platformNode("pi4", "arm64", ""),
		platformNode("pi3", "arm/v7", "")}
	tests := []struct {
		name        string
		images      []string
		extra       func() ImagePlatforms
		wantPending bool
		fits        []string
	}{
		{"nodes win over the lookup", []string{app}, func() ImagePlatforms {
			l := newLookupSource()
			l.platforms[app], l.pending[app] = []string{"linux/amd64"}, true
			return l
		}, false, []string{"pi4"}},
		{"lookup answered", []string{side}, func() ImagePlatforms {
			l := newLookupSource()
			l.platforms[side] = []string{"linux/arm/v7"}
			return l
		}, false, []string{"pi3"}},
		{"lookup pending", []string{side}, func() ImagePlatforms {
			l := newLookupSource()
			l.pending[side] = true
			return l
		}, true, nil},
		{"one image of two pending", []string{app, side}, func() ImagePlatforms {
			l := newLookupSource()
			l.pending[side] = true
			return l
		}, true, nil},
		{"lookup failed", []string{side}, func() ImagePlatforms { return newLookupSource() }, false, []string{"amd", "pi4", "pi3"}},
		{"source that never waits", []string{side}, func() ImagePlatforms { return staticPlatforms{} }, false, []string{"amd", "pi4", "pi3"}},
		{"no extra source", []string{side}, func() ImagePlatforms { return nil }, false, []string{"amd", "pi4", "pi3"}},
	}
	for _, tc := range tests {
		e := newEnv(t, nodes)
		e.algo.extra = tc.extra()
		pod := makePod("default", "p", func(p *corev1.Pod) {
			p.Spec.Containers = nil
			for _, img := range tc.images {
				p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: img[len(img)-5:], Image: img})
			}
		})
		e.cache.updateSnapshot(e.snap)
		if got := platformsPending(newPodInfo(pod), e.snap, e.algo.extra); got != tc.wantPending {
			t.Errorf("%s: pending got %v, want %v", tc.name, got, tc.wantPending)
		}
		if tc.wantPending {
			continue
		}
		for _, n := range nodes {
			want := strings.Contains(" "+strings.Join(tc.fits, " ")+" ", " "+n.Name+" ")
			if got := e.filterResult(archFilter{}, pod, n.Name); (got == nil) != want {
				t.Errorf("%s on %s: got reasons %q, want fits=%v", tc.name, n.Name, got, want)
			}
		}
	}
}

// newWaitingScheduler is an idle scheduler (its loop driven by the test)
// with a fake clock and a lookup source, on an amd64 and an arm64 node.
func newWaitingScheduler(t testing.TB, src ImagePlatforms) (*Scheduler, *clocktest.Fake) {
	t.Helper()
	store := openStore(t, datastore.SQLiteConfig{})
	clock := newFakeClock()
	s, err := New(Config{Store: store, Binder: &storeBinder{store: store}, Clock: clock, Logger: testLogger(t), ImagePlatforms: src})
	if err != nil {
		t.Fatal(err)
	}
	nodeHandler{s}.upsert(makeNode("amd", nodeArch("amd64")))
	nodeHandler{s}.upsert(makeNode("pi4", nodeArch("arm64")))
	return s, clock
}

// cycleOnce pops the next pod, which must be ready, and decides it.
func cycleOnce(t testing.TB, s *Scheduler) {
	t.Helper()
	s.scheduleOne(context.Background(), popNow(t, s.queue))
}

func TestPendingLookupDelaysWithoutStatusWrites(t *testing.T) {
	const image = "docker.io/team/app:1"
	src := newLookupSource()
	src.lookingUp(image)
	s, clock := newWaitingScheduler(t, src)
	podHandler{s}.upsert(makePod("default", "p", podImage(image)))
	for range 3 {
		cycleOnce(t, s)
		if _, backoff, unsched, _ := s.queue.stats(); backoff != 1 || unsched != 0 {
			t.Fatalf("while looked up: got %d in back-off, %d unschedulable, want 1 and 0", backoff, unsched)
		}
		if len(s.work) != 0 {
			t.Fatalf("while looked up: got %d jobs (binding or status write), want none", len(s.work))
		}
		assertEmpty(t, s.queue)
		clock.Advance(platformsRetry)
	}
	src.answer(image, "linux/arm64")
	cycleOnce(t, s)
	if node, assumed, ok := s.cache.counted("default/p"); !ok || !assumed || node != "pi4" {
		t.Fatalf("after the answer: got node %q (assumed %v, counted %v), want pi4", node, assumed, ok)
	}
	if len(s.work) != 1 {
		t.Errorf("after the answer: got %d jobs, want the binding", len(s.work))
	}
}

func TestPendingLookupWaitIsBounded(t *testing.T) {
	const image = "docker.io/team/app:1"
	src := newLookupSource()
	src.lookingUp(image)
	s, clock := newWaitingScheduler(t, src)
	podHandler{s}.upsert(makePod("default", "p", podImage(image)))
	cycles := 0
	for ; cycles < 1000; cycles++ {
		cycleOnce(t, s)
		if _, _, ok := s.cache.counted("default/p"); ok {
			break
		}
		clock.Advance(platformsRetry)
	}
	if want := int(platformsMaxWait / platformsRetry); cycles != want {
		t.Errorf("got the pod placed after %d cycles, want %d (%v of waiting)", cycles, want, platformsMaxWait)
	}
}

// TestSchedulerWaitsForLookups runs the real loop on the datastore: a pod
// whose image is being looked up stays unbound and unreported; answered,
// it goes to the only node that runs the image, and an image no node runs
// is reported Unschedulable with the architecture reason.
func TestSchedulerWaitsForLookups(t *testing.T) {
	const arm64Only, armv7Only = "docker.io/team/arm64only:1", "docker.io/team/armv7only:1"
	store := openStore(t, datastore.SQLiteConfig{})
	binder := &storeBinder{store: store}
	for _, n := range []*corev1.Node{makeNode("amd-1"), makeNode("amd-2"), makeNode("amd-3"), makeNode("pi-1", nodeArch("arm64"))} {
		putObject(t, store, n)
	}
	src := newLookupSource()
	src.lookingUp(arm64Only)
	src.lookingUp(armv7Only)
	s, err := New(Config{Store: store, Binder: binder, Logger: testLogger(t), ImagePlatforms: src})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	putObject(t, store, makePod("default", "sensor", podImage(arm64Only)))
	putObject(t, store, makePod("default", "old", podImage(armv7Only)))
	putObject(t, store, makePod("default", "plain", podImage("docker.io/library/busybox:1")))
	waitPod(t, store, "default", "plain", "bound", isBound) // the loop is running
	time.Sleep(3 * platformsRetry)
	for _, name := range []string{"sensor", "old"} {
		p, _, err := getPod(context.Background(), store, "default", name)
		if err != nil || p.Spec.NodeName != "" || len(p.Status.Conditions) != 0 {
			t.Fatalf("pod %s while its image is looked up: got node %q, conditions %+v (err %v), want neither", name, p.Spec.NodeName, p.Status.Conditions, err)
		}
		if ev := binder.eventsOf("default", name, reasonFailedScheduling); len(ev) != 0 {
			t.Fatalf("pod %s while its image is looked up: got events %q, want none", name, ev)
		}
	}
	src.answer(arm64Only, "linux/arm64")
	src.answer(armv7Only, "linux/arm/v7")
	if p := waitPod(t, store, "default", "sensor", "bound", isBound); p.Spec.NodeName != "pi-1" {
		t.Errorf("sensor: got node %s, want pi-1 (the only arm64 node)", p.Spec.NodeName)
	}
	want := "0/4 nodes are available: 4 node(s) didn't match the image's architecture (image supports linux/arm/v7)."
	waitPod(t, store, "default", "old", "Unschedulable", func(p *corev1.Pod) bool { return unschedulableMessage(p) == want })
}
